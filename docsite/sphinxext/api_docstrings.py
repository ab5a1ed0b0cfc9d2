"""Two fixes for PyTensor's docstrings as autodoc renders them on MyST pages (api/).

1. PyTensor writes `.. deprecated:: Use pullback instead.` without a version, so Sphinx takes the first word for
   the version ("Deprecated since version Use:"). The renames came with PyTensor 3.0.0; we supply that version
   and keep the text.
2. Numbered footnotes inside autodoc output:
MyST's {eval-rst} parses its content into a separate document and re-registers only top-level targets, so a
numbered footnote inside autodoc output (PyTensor's "References: .. [1]" in pushforward and Op.grad) reaches
the page unregistered and docutils reports 'Unknown target name: "1"'. This transform registers such nested
footnotes and their references with the page (fresh ids), before docutils resolves footnotes (priority 620).
"""

import re

from docutils import nodes
from docutils.transforms import Transform

UNVERSIONED = re.compile(r"^(\s*)\.\. deprecated::\s*(?![\d.]+\b)(.*)$")


def add_deprecation_version(app, what, name, obj, options, lines):
    fixed = []
    for line in lines:
        match = UNVERSIONED.match(line)
        if not match:
            fixed.append(line)
            continue
        indent, text = match.groups()
        fixed.append(f"{indent}.. deprecated:: 3.0")
        if text:
            fixed.append(f"{indent}   {text}")
    lines[:] = fixed


class NestedRstFootnotes(Transform):
    default_priority = 615

    def apply(self):
        doc = self.document
        for footnote in list(doc.findall(nodes.footnote)):
            if footnote.get("auto") or any(name in doc.nameids for name in footnote["names"]):
                continue  # auto-numbered, or already registered (a top-level footnote)
            footnote["ids"] = []
            doc.note_explicit_target(footnote, footnote)
            doc.note_footnote(footnote)
        for ref in list(doc.findall(nodes.footnote_reference)):
            if "refname" in ref and ref not in doc.footnote_refs.get(ref["refname"], []):
                ref["ids"] = []
                doc.set_id(ref)
                doc.note_footnote_ref(ref)


def setup(app):
    app.add_transform(NestedRstFootnotes)
    app.connect("autodoc-process-docstring", add_deprecation_version)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
