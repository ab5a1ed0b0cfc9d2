"""The role ``{anchor}`Title <label>```: a citable anchor inside a table row or a sentence.

Sphinx registers labels only before blocks; this registers one inline, so ``{ref}`label``` works and the
anchor test (tests/test_links.py) can check it like any other.
"""

import re

from docutils import nodes
from sphinx.util.docutils import SphinxRole


class InlineAnchor(SphinxRole):
    def run(self):
        title, label = re.fullmatch(r"(.*?)\s*<([\w-]+)>", self.text, re.S).groups()
        self.env.get_domain("std").note_hyperlink_target(label, self.env.docname, label, title)
        return [nodes.inline(self.rawtext, title, ids=[label])], []


def setup(app):
    app.add_role("anchor", InlineAnchor())
    return {"parallel_read_safe": True, "parallel_write_safe": True}
