/* Explorers: figures the reader drives (the cells that embed them are on the vocabulary, testing-rules and loop
 * pages). Every number comes from the JSON a PyTensor cell embedded next to the figure; this script only
 * multiplies an embedded 2x2 Jacobian by the vectors the reader chose, picks embedded values, and draws.
 * Needs window.d3 with d3-selection and d3-drag (vendored next to this file, see VENDORED.txt).
 * Contract: the root has data-explorer="<name>"; after every change its data-state holds the numbers on screen.
 */
(function () {
  "use strict";
  var d3 = window.d3;
  var SVG = "http://www.w3.org/2000/svg";
  var uid = 0;

  function el(parent, tag, attrs, text) {  // an SVG element
    var node = document.createElementNS(SVG, tag);
    for (var k in attrs || {}) node.setAttribute(k, attrs[k]);
    if (text !== undefined) node.textContent = text;
    if (parent) parent.appendChild(node);
    return node;
  }

  function html(parent, tag, attrs, text) {  // an HTML element
    var node = document.createElement(tag);
    for (var k in attrs || {}) node.setAttribute(k, attrs[k]);
    if (text !== undefined) node.textContent = text;
    if (parent) parent.appendChild(node);
    return node;
  }

  function num(v, digits) {  // fixed digits, a real minus sign
    var s = Math.abs(v) < 0.5 * Math.pow(10, -digits) ? (0).toFixed(digits) : v.toFixed(digits);
    return s.replace("-", "\u2212");
  }

  function sci(v) {
    if (v === 0) return "0";
    var e = Math.floor(Math.log10(Math.abs(v)) + 1e-12), m = v / Math.pow(10, e);
    if (Math.abs(m) >= 9.995) { m /= 10; e += 1; }
    return (m.toFixed(2) + "e" + e).replace("-", "\u2212");
  }

  function sig(v) {  // three significant digits, no exponent
    if (v === 0) return "0";
    var digits = Math.max(0, 2 - Math.floor(Math.log10(Math.abs(v)) + 1e-12));
    return v.toFixed(Math.min(digits, 8)).replace("-", "\u2212");
  }

  function vec(v, digits) { return "(" + num(v[0], digits) + ", " + num(v[1], digits) + ")"; }

  /* ---------- the tangent / cotangent explorer ---------- */
  // Drag handlers read event.x, event.y: d3-drag gives them in the container's (the SVG's) user units, for a
  // mouse, a pen or a finger alike.

  var W = 300;  // each plane is a W x W viewBox

  function plane(parent, label, center, half) {
    var svg = el(parent, "svg", {viewBox: "0 0 " + W + " " + W, role: "group", "aria-label": label,
                                 "class": "ppx-plane"});
    var id = "ppx-clip-" + (++uid);
    el(el(svg, "defs"), "clipPath", {id: id}).appendChild(el(null, "rect", {x: 0, y: 0, width: W, height: W}));
    el(svg, "rect", {x: 0.5, y: 0.5, width: W - 1, height: W - 1, "class": "ppx-frame"});
    var body = el(svg, "g", {"clip-path": "url(#" + id + ")"});
    var view = {svg: svg, body: body, center: center, half: half};
    view.px = function (u) {
      return [W / 2 + (u[0] - view.center[0]) / view.half * W / 2, W / 2 - (u[1] - view.center[1]) / view.half * W / 2];
    };
    view.world = function (p) {
      return [view.center[0] + (p[0] - W / 2) * 2 * view.half / W, view.center[1] - (p[1] - W / 2) * 2 * view.half / W];
    };
    return view;
  }

  function clear(g) { while (g.firstChild) g.removeChild(g.firstChild); }

  function backgroundGrid(view, g, names) {
    clear(g);
    var lo0 = Math.ceil(view.center[0] - view.half), hi0 = Math.floor(view.center[0] + view.half);
    var lo1 = Math.ceil(view.center[1] - view.half), hi1 = Math.floor(view.center[1] + view.half);
    for (var a = lo0; a <= hi0; a++) {
      var p = view.px([a, 0])[0];
      el(g, "line", {x1: p, x2: p, y1: 0, y2: W, "class": "ppx-grid"});
      if (p > 24 && p < W - 70) el(g, "text", {x: p + 2, y: W - 4, "class": "ppx-tick"}, String(a).replace("-", "\u2212"));
    }
    for (var b = lo1; b <= hi1; b++) {
      var q = view.px([0, b])[1];
      el(g, "line", {x1: 0, x2: W, y1: q, y2: q, "class": "ppx-grid"});
      if (q > 30 && q < W - 24) el(g, "text", {x: 3, y: q - 3, "class": "ppx-tick"}, String(b).replace("-", "\u2212"));
    }
    el(g, "text", {x: W - 6, y: W - 16, "class": "ppx-axis", "text-anchor": "end"}, names[0] + " \u2192");
    el(g, "text", {x: 6, y: 14, "class": "ppx-axis"}, names[1] + " \u2191");
  }

  function arrow(g, p0, p1, cls, dashed) {
    var dx = p1[0] - p0[0], dy = p1[1] - p0[1], len = Math.hypot(dx, dy);
    if (len < 1) return;
    var ux = dx / len, uy = dy / len, head = Math.min(10, 0.5 * len);
    var bx = p1[0] - head * ux, by = p1[1] - head * uy;
    el(g, "line", {x1: p0[0], y1: p0[1], x2: bx, y2: by, "class": "ppx-shaft " + cls + (dashed ? " ppx-dashed" : "")});
    el(g, "polygon", {points: [p1[0], p1[1], bx - 0.45 * head * uy, by + 0.45 * head * ux,
                               bx + 0.45 * head * uy, by - 0.45 * head * ux].join(" "), "class": "ppx-head " + cls});
  }

  function levelLines(view, g, covector, base, spacing, cls) {
    // the lines <covector, u - base> = k * spacing, k = ..., -1, 0, 1, ...
    var norm2 = covector[0] * covector[0] + covector[1] * covector[1];
    if (norm2 < 1e-18) return;
    var norm = Math.sqrt(norm2), t = [-covector[1] / norm, covector[0] / norm];
    var reach = 1.5 * view.half, kmax = Math.min(60, Math.ceil(reach * norm / spacing));
    for (var k = -kmax; k <= kmax; k++) {
      var c = [base[0] + k * spacing * covector[0] / norm2, base[1] + k * spacing * covector[1] / norm2];
      var a = view.px([c[0] - reach * t[0], c[1] - reach * t[1]]), b = view.px([c[0] + reach * t[0], c[1] + reach * t[1]]);
      el(g, "line", {x1: a[0], y1: a[1], x2: b[0], y2: b[1], "class": "ppx-level " + cls + (k === 0 ? " ppx-level0" : "")});
    }
  }

  function polyline(g, points, cls) {
    el(g, "polyline", {points: points.map(function (p) { return p[0].toFixed(2) + "," + p[1].toFixed(2); }).join(" "),
                       "class": cls});
  }

  function handle(view, parent, name, label, cls) {
    var g = el(parent, "g", {tabindex: "0", role: "slider", "data-handle": name, "aria-label": label,
                             "class": "ppx-handle " + cls});
    el(g, "circle", {r: 17, "class": "ppx-hit"});
    el(g, "circle", {r: 12, "class": "ppx-ring"});
    el(g, "circle", {r: 6.5, "class": "ppx-knob"});
    return g;
  }

  function tangentExplorer(root, data) {
    var n0 = data.xs0.length, n1 = data.xs1.length, per = data.per_unit, vmax = data.vector_max * per;
    var s = data.arrow_scale, r = data.covector_scale, spacing = data.spacing, patch = data.patch;
    var st = {i: data.start.slice(), xd: data.x_dot.slice(), yb: data.y_bar.slice()};  // grid indices, counts
    var figure = root.querySelector(".ppx-figure");
    var center = [(data.xs0[0] + data.xs0[n0 - 1]) / 2, (data.xs1[0] + data.xs1[n1 - 1]) / 2];
    // room around the grid for the longest tangent drawn from its edge, so every handle stays on the plane
    var half = Math.max(data.xs0[n0 - 1] - data.xs0[0], data.xs1[n1 - 1] - data.xs1[0]) / 2 +
               Math.max(data.pad, s * data.vector_max + 0.2);
    var vin = plane(figure, "Input plane: the point x, the tangent x-dot, and the pulled-back covector x-bar",
                    center, half);
    var vout = plane(figure, "Output plane: f(x), the pushed-forward tangent y-dot and the covector y-bar",
                     [0, 0], data.output_half);
    var localId = "ppx-local-" + (++uid);  // the linear stack of x-bar is drawn near x only
    var localClip = el(el(vin.svg, "defs"), "clipPath", {id: localId});
    var localDisk = el(localClip, "circle", {r: data.local_radius / half * W / 2});
    var layers = {};
    ["grid", "patch", "levels", "arrows"].forEach(function (k) {
      layers["in_" + k] = el(vin.body, "g"); layers["out_" + k] = el(vout.body, "g");
    });
    layers.in_levels.setAttribute("clip-path", "url(#" + localId + ")");
    el(vin.svg, "text", {x: W / 2, y: 16, "class": "ppx-title", "text-anchor": "middle"}, "input: x, \u1E8B, x\u0304");
    el(vout.svg, "text", {x: W / 2, y: 16, "class": "ppx-title", "text-anchor": "middle"}, "output: f(x), \u1E8F, y\u0304");
    var hx = handle(vin, vin.svg, "x", "point x (arrow keys move it one grid step)", "ppx-c-point");
    var hxd = handle(vin, vin.svg, "x_dot", "tangent x-dot (arrow keys change it by one grid step)", "ppx-c-tangent");
    var hyb = handle(vout, vout.svg, "y_bar", "cotangent y-bar (arrow keys change it by one grid step)", "ppx-c-cotangent");
    var out = {};
    root.querySelectorAll("[data-out]").forEach(function (node) { out[node.getAttribute("data-out")] = node; });

    function k(i0, i1) { return i0 * n1 + i1; }
    function xAt(i0, i1) { return [data.xs0[i0], data.xs1[i1]]; }

    function render() {
      var idx = k(st.i[0], st.i[1]), J = data.J[idx], x = xAt(st.i[0], st.i[1]), y = data.y[idx];
      var xd = [st.xd[0] / per, st.xd[1] / per], yb = [st.yb[0] / per, st.yb[1] / per];
      var yd = [J[0] * xd[0] + J[1] * xd[1], J[2] * xd[0] + J[3] * xd[1]];  // J x_dot
      var xb = [J[0] * yb[0] + J[2] * yb[1], J[1] * yb[0] + J[3] * yb[1]];  // J^T y_bar
      var pairOut = yb[0] * yd[0] + yb[1] * yd[1], pairIn = xb[0] * xd[0] + xb[1] * xd[1];
      vout.center = y;
      backgroundGrid(vin, layers.in_grid, ["x\u2080", "x\u2081"]);
      backgroundGrid(vout, layers.out_grid, ["y\u2080", "y\u2081"]);
      // the patch of grid lines around x and its image under f (f evaluated by PyTensor at the grid points)
      ["in_patch", "out_patch", "in_levels", "out_levels", "in_arrows", "out_arrows"].forEach(function (l) { clear(layers[l]); });
      for (var axis = 0; axis < 2; axis++) {
        for (var off = -patch; off <= patch; off++) {
          var ptsIn = [], ptsOut = [];
          for (var t = -patch; t <= patch; t++) {
            var a = axis === 0 ? st.i[0] + t : st.i[0] + off, b = axis === 0 ? st.i[1] + off : st.i[1] + t;
            if (a < 0 || b < 0 || a >= n0 || b >= n1) continue;
            ptsIn.push(vin.px(xAt(a, b))); ptsOut.push(vout.px(data.y[k(a, b)]));
          }
          var cls = off === 0 ? "ppx-curve ppx-curve" + axis : "ppx-mesh";
          polyline(layers.in_patch, ptsIn, cls); polyline(layers.out_patch, ptsOut, cls);
        }
      }
      levelLines(vout, layers.out_levels, yb, y, spacing, "ppx-c-cotangent");
      levelLines(vin, layers.in_levels, xb, x, spacing, "ppx-c-cotangent ppx-dashed");
      var px = vin.px(x), py = vout.px(y);
      localDisk.setAttribute("cx", px[0]); localDisk.setAttribute("cy", px[1]);
      arrow(layers.in_arrows, px, vin.px([x[0] + s * xb[0], x[1] + s * xb[1]]), "ppx-c-cotangent", true);
      arrow(layers.in_arrows, px, vin.px([x[0] + s * xd[0], x[1] + s * xd[1]]), "ppx-c-tangent");
      arrow(layers.out_arrows, py, vout.px([y[0] + r * yb[0], y[1] + r * yb[1]]), "ppx-c-cotangent");
      arrow(layers.out_arrows, py, vout.px([y[0] + s * yd[0], y[1] + s * yd[1]]), "ppx-c-tangent");
      el(layers.out_arrows, "circle", {cx: py[0], cy: py[1], r: 4.5, "class": "ppx-dot"});
      var p = vin.px([x[0] + s * xd[0], x[1] + s * xd[1]]), q = vout.px([y[0] + r * yb[0], y[1] + r * yb[1]]);
      hx.setAttribute("transform", "translate(" + px[0] + "," + px[1] + ")");
      hxd.setAttribute("transform", "translate(" + p[0] + "," + p[1] + ")");
      hyb.setAttribute("transform", "translate(" + q[0] + "," + q[1] + ")");
      [[hx, x, data.xs0[0], data.xs0[n0 - 1], "x"], [hxd, xd, -data.vector_max, data.vector_max, "x-dot"],
       [hyb, yb, -data.vector_max, data.vector_max, "y-bar"]].forEach(function (h) {
        h[0].setAttribute("aria-valuenow", h[1][0]);
        h[0].setAttribute("aria-valuemin", h[2]);
        h[0].setAttribute("aria-valuemax", h[3]);
        h[0].setAttribute("aria-valuetext", h[4] + " = " + vec(h[1], 2));
      });
      out.x.textContent = vec(x, 2);
      out.y.textContent = vec(y, 4);
      out.J.textContent = "[[" + num(J[0], 4) + ", " + num(J[1], 4) + "], [" + num(J[2], 4) + ", " + num(J[3], 4) + "]]";
      out.x_dot.textContent = vec(xd, 2);
      out.y_dot.textContent = vec(yd, 4);
      out.y_bar.textContent = vec(yb, 2);
      out.x_bar.textContent = vec(xb, 4);
      out.pair_out.textContent = num(pairOut, 6);
      out.pair_in.textContent = num(pairIn, 6);
      root.setAttribute("data-state", JSON.stringify({x: x, x_dot: xd, y_bar: yb, y_dot: yd, x_bar: xb, y: y, J: J,
                                                      pairings: [pairOut, pairIn]}));
    }

    function clamp(v, lo, hi) { return Math.max(lo, Math.min(hi, v)); }
    var moves = {
      x: function (d0, d1) { st.i = [clamp(st.i[0] + d0, 0, n0 - 1), clamp(st.i[1] + d1, 0, n1 - 1)]; },
      x_dot: function (d0, d1) { st.xd = [clamp(st.xd[0] + d0, -vmax, vmax), clamp(st.xd[1] + d1, -vmax, vmax)]; },
      y_bar: function (d0, d1) { st.yb = [clamp(st.yb[0] + d0, -vmax, vmax), clamp(st.yb[1] + d1, -vmax, vmax)]; }
    };
    var keys = {ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1]};
    [hx, hxd, hyb].forEach(function (h) {
      h.addEventListener("keydown", function (event) {
        var step = keys[event.key];
        if (!step) return;
        event.preventDefault();
        moves[h.getAttribute("data-handle")](step[0], step[1]);
        render();
      });
    });
    function nearest(list, v) {
      var best = 0;
      for (var j = 1; j < list.length; j++) if (Math.abs(list[j] - v) < Math.abs(list[best] - v)) best = j;
      return best;
    }
    d3.select(hx).call(d3.drag().container(vin.svg).on("drag", function (event) {
      var u = vin.world([event.x, event.y]);
      st.i = [nearest(data.xs0, u[0]), nearest(data.xs1, u[1])]; render();
    }));
    d3.select(hxd).call(d3.drag().container(vin.svg).on("drag", function (event) {
      var u = vin.world([event.x, event.y]), x = xAt(st.i[0], st.i[1]);
      st.xd = [0, 1].map(function (c) { return clamp(Math.round((u[c] - x[c]) / s * per), -vmax, vmax); }); render();
    }));
    d3.select(hyb).call(d3.drag().container(vout.svg).on("drag", function (event) {
      var u = vout.world([event.x, event.y]), y = vout.center;
      st.yb = [0, 1].map(function (c) { return clamp(Math.round((u[c] - y[c]) / r * per), -vmax, vmax); }); render();
    }));
    render();
  }

  /* ---------- the series explorer: one slider over a grid, values read off embedded curves ---------- */

  function seriesExplorer(root, data) {
    var xs = data.xs, n = xs.length, i = data.start;
    var figure = root.querySelector(".ppx-figure");
    var PW = 420, PH = 250, m = {l: 58, r: 12, t: 26, b: 40};
    var lx = xs.map(Math.log10), xlo = Math.min.apply(null, lx), xhi = Math.max.apply(null, lx);
    var padx = 0.04 * (xhi - xlo || 1);
    xlo -= padx; xhi += padx;
    function X(v) { return m.l + (Math.log10(v) - xlo) / (xhi - xlo) * (PW - m.l - m.r); }
    var panels = data.panels.map(function (panel) {
      var all = [];
      panel.series.forEach(function (sr) { sr.values.forEach(function (v) { if (v > 0) all.push(Math.log10(v)); }); });
      var ylo = Math.floor(Math.min.apply(null, all) * 2) / 2, yhi = Math.ceil(Math.max.apply(null, all) * 2) / 2;
      if (yhi - ylo < 1) { ylo -= 0.5; yhi += 0.5; }
      function Y(v) { return PH - m.b - (Math.log10(v) - ylo) / (yhi - ylo) * (PH - m.t - m.b); }
      var svg = el(figure, "svg", {viewBox: "0 0 " + PW + " " + PH, role: "img", "class": "ppx-chart",
                                   "aria-label": panel.title + ": " + panel.ylabel + " against " + data.xlabel +
                                   " (log-log); the values at the chosen point are in the table below"});
      el(svg, "text", {x: (m.l + PW - m.r) / 2, y: 16, "class": "ppx-title", "text-anchor": "middle"}, panel.title);
      var ystep = Math.max(1, Math.ceil((Math.floor(yhi) - Math.ceil(ylo)) / 7));
      for (var e = Math.ceil(ylo); e <= Math.floor(yhi); e += ystep) {
        var yy = Y(Math.pow(10, e));
        el(svg, "line", {x1: m.l, x2: PW - m.r, y1: yy, y2: yy, "class": "ppx-grid"});
        el(svg, "text", {x: m.l - 4, y: yy + 4, "class": "ppx-tick", "text-anchor": "end"}, "1e" + String(e).replace("-", "\u2212"));
      }
      var step = Math.max(1, Math.ceil((Math.floor(xhi) - Math.ceil(xlo)) / 8));
      for (var ex = Math.ceil(xlo); ex <= Math.floor(xhi); ex += step) {
        var xx = X(Math.pow(10, ex));
        el(svg, "line", {x1: xx, x2: xx, y1: m.t, y2: PH - m.b, "class": "ppx-grid"});
        el(svg, "text", {x: xx, y: PH - m.b + 14, "class": "ppx-tick", "text-anchor": "middle"}, "1e" + String(ex).replace("-", "\u2212"));
      }
      el(svg, "rect", {x: m.l, y: m.t, width: PW - m.l - m.r, height: PH - m.t - m.b, "class": "ppx-frame"});
      el(svg, "text", {x: (m.l + PW - m.r) / 2, y: PH - 6, "class": "ppx-axis", "text-anchor": "middle"}, data.xlabel);
      el(svg, "text", {x: 12, y: (m.t + PH - m.b) / 2, "class": "ppx-axis", "text-anchor": "middle",
                       transform: "rotate(-90 12 " + (m.t + PH - m.b) / 2 + ")"}, panel.ylabel);
      panel.series.forEach(function (sr, j) {
        var pts = [];
        sr.values.forEach(function (v, q) { if (v > 0) pts.push([X(xs[q]), Y(v)]); });
        polyline(svg, pts, "ppx-line ppx-s" + j + (sr.dashed ? " ppx-dashed" : ""));
        if (!sr.dashed) pts.forEach(function (p) { el(svg, "circle", {cx: p[0], cy: p[1], r: 2.5, "class": "ppx-mark ppx-s" + j}); });
      });
      var cursor = el(svg, "line", {y1: m.t, y2: PH - m.b, "class": "ppx-cursor"});
      var marks = panel.series.map(function (sr, j) { return el(svg, "circle", {r: 5.5, "class": "ppx-here ppx-s" + j}); });
      var hit = el(svg, "rect", {x: m.l, y: m.t, width: PW - m.l - m.r, height: PH - m.t - m.b, "class": "ppx-drag"});
      d3.select(hit).call(d3.drag().container(svg).on("start drag", function (event) {
        var px = event.x, best = 0;
        for (var q = 1; q < n; q++) if (Math.abs(X(xs[q]) - px) < Math.abs(X(xs[best]) - px)) best = q;
        slider.value = best; set(best);
      }));
      return {panel: panel, Y: Y, cursor: cursor, marks: marks};
    });
    // the control and the table of values, built here from the data
    var live = root.querySelector(".ppx-needs-js"), sliderId = "ppx-slider-" + (++uid);
    var control = html(live, "div", {"class": "ppx-control"});
    html(control, "label", {"for": sliderId}, data.slider_label);
    var slider = html(control, "input", {type: "range", id: sliderId, min: 0, max: n - 1, step: 1,
                                          "data-handle": data.x_name});
    var out = {position: html(control, "output", {"for": sliderId, "class": "ppx-position"})};
    var table = html(live, "table", {"class": "ppx-values"});
    html(table, "caption", {}, data.table_caption);
    var head = html(html(table, "thead"), "tr");
    html(head, "th", {scope: "col"}, data.row_header || "");
    data.panels.forEach(function (panel) { html(head, "th", {scope: "col"}, panel.column); });
    var body = html(table, "tbody"), names = [];
    data.panels.forEach(function (panel) { panel.series.forEach(function (sr) { if (names.indexOf(sr.name) < 0) names.push(sr.name); }); });
    names.forEach(function (name) {
      var row = html(body, "tr");
      var th = html(row, "th", {scope: "row"});
      var j = -1, dashed = false;
      data.panels.forEach(function (panel) {
        var jj = panel.series.map(function (sr) { return sr.name; }).indexOf(name);
        if (j < 0 && jj >= 0) { j = jj; dashed = !!panel.series[jj].dashed; }
      });
      html(th, "span", {"class": "ppx-swatch ppx-s" + j + (dashed ? " ppx-swatch-dashed" : ""), "aria-hidden": "true"});
      th.appendChild(document.createTextNode(name));
      data.panels.forEach(function (panel, pi) {
        var jj = panel.series.map(function (sr) { return sr.name; }).indexOf(name);
        var cell = html(row, "td", {"class": "ppx-num"}, jj < 0 ? "" : "");
        if (jj >= 0) out[pi + ":" + jj] = cell;
      });
    });
    function show(v) { return data.x_format === "int" ? String(v) : sci(v); }
    function set(q) {
      i = q;
      var values = {};
      panels.forEach(function (p, pi) {
        var xx = X(xs[i]);
        p.cursor.setAttribute("x1", xx); p.cursor.setAttribute("x2", xx);
        values[p.panel.key] = {};
        p.panel.series.forEach(function (sr, j) {
          var v = sr.values[i];
          values[p.panel.key][sr.name] = v;
          p.marks[j].setAttribute("cx", xx); p.marks[j].setAttribute("cy", v > 0 ? p.Y(v) : -99);
          var cell = out[pi + ":" + j];
          var shown = v * (p.panel.display_scale || 1);
          if (cell) cell.textContent = (p.panel.format === "sig" ? sig(shown) : sci(shown)) +
                                       (p.panel.unit ? " " + p.panel.unit : "");
        });
      });
      slider.setAttribute("aria-valuetext", data.x_name + " = " + show(xs[i]));
      out.position.textContent = show(xs[i]);
      var state = {index: i, values: values};
      state[data.x_name] = xs[i];
      root.setAttribute("data-state", JSON.stringify(state));
    }
    slider.addEventListener("input", function () { set(Number(slider.value)); });
    slider.value = i;
    set(i);
  }

  /* ---------- the grid explorer: a handle on a grid of (n, m) cells, each with embedded measurements ---------- */

  function gridExplorer(root, data) {
    var ns = data.ns, ms = data.ms, st = data.start.slice(), PW = 320, m = {l: 56, r: 10, t: 14, b: 44};
    var cw = (PW - m.l - m.r) / ns.length, ch = (PW - m.t - m.b) / ms.length;
    var figure = root.querySelector(".ppx-figure");
    var svg = el(figure, "svg", {viewBox: "0 0 " + PW + " " + PW, role: "group", "class": "ppx-plane ppx-cells",
                                 "aria-label": data.aria_label});
    function cx(i) { return m.l + (i + 0.5) * cw; }
    function cy(j) { return PW - m.b - (j + 0.5) * ch; }
    ns.forEach(function (n, i) {
      ms.forEach(function (mm, j) {
        var cell = data.cells[i][j];
        el(svg, "rect", {x: cx(i) - cw / 2 + 1, y: cy(j) - ch / 2 + 1, width: cw - 2, height: ch - 2,
                         "class": "ppx-cell ppx-cell-" + cell.faster});
        [].concat(cell.label).forEach(function (line, k, lines) {  // one or two lines, centred in the cell
          el(svg, "text", {x: cx(i), y: cy(j) + 4 + 14 * (k - (lines.length - 1) / 2), "text-anchor": "middle",
                           "class": "ppx-cell-label"}, line);
        });
      });
      el(svg, "text", {x: cx(i), y: PW - m.b + 14, "text-anchor": "middle", "class": "ppx-tick"}, String(n));
    });
    ms.forEach(function (mm, j) {
      el(svg, "text", {x: m.l - 5, y: cy(j) + 4, "text-anchor": "end", "class": "ppx-tick"}, String(mm));
    });
    el(svg, "text", {x: (m.l + PW - m.r) / 2, y: PW - 8, "text-anchor": "middle", "class": "ppx-axis"}, data.xlabel);
    el(svg, "text", {x: 12, y: (m.t + PW - m.b) / 2, "text-anchor": "middle", "class": "ppx-axis",
                     transform: "rotate(-90 12 " + (m.t + PW - m.b) / 2 + ")"}, data.ylabel);
    var h = el(svg, "g", {tabindex: "0", role: "slider", "data-handle": "nm", "aria-label": data.handle_label,
                          "class": "ppx-handle ppx-cellhandle"});
    el(h, "rect", {x: -cw / 2, y: -ch / 2, width: cw, height: ch, "class": "ppx-hit"});
    el(h, "rect", {x: -cw / 2 + 2, y: -ch / 2 + 2, width: cw - 4, height: ch - 4, "class": "ppx-cellframe"});
    el(h, "rect", {x: -cw / 2 - 2, y: -ch / 2 - 2, width: cw + 4, height: ch + 4, "class": "ppx-ring"});
    var out = {};
    root.querySelectorAll("[data-out]").forEach(function (node) { out[node.getAttribute("data-out")] = node; });
    function render() {
      var cell = data.cells[st[0]][st[1]];
      h.setAttribute("transform", "translate(" + cx(st[0]) + "," + cy(st[1]) + ")");
      h.setAttribute("aria-valuenow", ns[st[0]]);
      h.setAttribute("aria-valuemin", ns[0]);
      h.setAttribute("aria-valuemax", ns[ns.length - 1]);
      h.setAttribute("aria-valuetext", "n = " + ns[st[0]] + ", m = " + ms[st[1]]);
      out.n.textContent = ns[st[0]];
      out.m.textContent = ms[st[1]];
      out.columns.textContent = sig(cell.columns * 1e3) + " ms";
      out.rows.textContent = sig(cell.rows * 1e3) + " ms";
      out.verdict.textContent = cell.verdict;
      root.setAttribute("data-state", JSON.stringify({n: ns[st[0]], m: ms[st[1]], columns: cell.columns,
                                                      rows: cell.rows, faster: cell.faster}));
    }
    var keys = {ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1]};
    h.addEventListener("keydown", function (event) {
      var step = keys[event.key];
      if (!step) return;
      event.preventDefault();
      st = [Math.max(0, Math.min(ns.length - 1, st[0] + step[0])), Math.max(0, Math.min(ms.length - 1, st[1] + step[1]))];
      render();
    });
    var pick = d3.drag().container(svg).subject(function (event) { return {x: event.x, y: event.y}; })
      .on("start drag", function (event) {
        var i = Math.floor((event.x - m.l) / cw), j = Math.floor((PW - m.b - event.y) / ch);
        if (i < 0 || j < 0 || i >= ns.length || j >= ms.length) return;
        st = [i, j]; render();
      });
    d3.select(svg).call(pick);
    render();
  }

  var kinds = {tangent: tangentExplorer, series: seriesExplorer, grid: gridExplorer};

  function mountAll() {
    if (!d3 || !d3.select || !d3.drag) return;
    var roots = document.querySelectorAll("[data-explorer]:not([data-mounted])");
    for (var j = 0; j < roots.length; j++) {
      var root = roots[j], source = root.querySelector("script.ppx-data");
      if (!source) continue;
      var data = JSON.parse(source.textContent);
      if (!kinds[data.kind]) continue;
      root.setAttribute("data-mounted", "");
      kinds[data.kind](root, data);
      root.classList.add("ppx-live");  // CSS hides the no-JavaScript note and shows the controls
    }
  }

  window.ppxExplorers = {mount: mountAll};
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mountAll);
  else mountAll();
})();
