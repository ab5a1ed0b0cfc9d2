/* Small behaviour fixes (issue 16): keyboard access to wide formulas, focus after the search dialog closes. */
(function () {
  "use strict";
  function whenReady(fn) {
    if (document.readyState !== "loading") fn(); else document.addEventListener("DOMContentLoaded", fn);
  }
  whenReady(function () {
    // Esc closes the theme's search dialog; when it was opened with Ctrl+K from nowhere in particular, the
    // browser puts focus back on <body>. Send it to the visible search button instead, so a keyboard reader
    // continues from where the search started.
    var opener = null;
    document.addEventListener("focusin", function (e) {
      var dialog = document.getElementById("pst-search-dialog");
      if (dialog && !dialog.contains(e.target)) opener = e.target;
    });
    // Formulas are out of the Tab order (conf: MathJax inTabOrder false), but one wider than the column scrolls
    // sideways in its own box: that box must take keyboard focus so it can be scrolled without a mouse.
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
      MathJax.startup.promise.then(function () {
        document.querySelectorAll('mjx-container[display="true"]').forEach(function (box) {
          if (box.scrollWidth > box.clientWidth + 1) {
            box.setAttribute("tabindex", "0");
            box.classList.add("scrolls");
          }
        });
      });
    }
    var dialog = document.getElementById("pst-search-dialog");
    if (!dialog) return;
    dialog.addEventListener("close", function () {
      setTimeout(function () {
        var active = document.activeElement;
        if (active && active !== document.body && active !== document.documentElement) return;
        var target = opener && document.contains(opener) && opener.offsetParent !== null ? opener : null;
        if (!target) {
          target = Array.prototype.find.call(document.querySelectorAll(".search-button__button"),
            function (b) { return b.offsetParent !== null; });
        }
        if (target) target.focus();
      }, 0);
    });
  });
})();
