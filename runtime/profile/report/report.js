/* report.js — the views of profile.html: icicle graph of the call tree, flat profile, spread
 * over threads and ranks (docs/report.md). Reads the embedded profile.json; draws with DOM
 * elements only (names always go in as text, never as markup). What is too small to draw is
 * aggregated: call paths narrower than MIN_PX into one frame per parent, rows below MAX_ROWS
 * into one frame, flat rows beyond MAX_TABLE_ROWS, locations beyond MAX_BARS into bars of
 * sorted slices. */
(function () {
  'use strict';
  var MIN_PX = 2, ROW_PX = 18, MAX_ROWS = 200, MAX_TABLE_ROWS = 1000, MAX_BARS = 200;
  /* Per-node fields of the format; every other number on a node is an extra metric column. */
  var KNOWN = { id: 1, parent: 1, depth: 1, region: 1, visits: 1, inclusive: 1, exclusive: 1,
    min_inclusive: 1, max_inclusive: 1, min_exclusive: 1, max_exclusive: 1, locations: 1,
    location: 1, kids: 1 };

  var D = JSON.parse(document.getElementById('instr-data').textContent);
  var $ = function (id) { return document.getElementById(id); };
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function ns(v) {
    if (v >= 1e9) return (v / 1e9).toFixed(3) + ' s';
    if (v >= 1e6) return (v / 1e6).toFixed(3) + ' ms';
    if (v >= 1e3) return (v / 1e3).toFixed(2) + ' µs';
    return v + ' ns';
  }
  function pct(v, of) { return of > 0 ? (100 * v / of).toFixed(1) + ' %' : '-'; }

  var regions = {};
  (D.regions || []).forEach(function (r) { regions[r.id] = r; });
  function rname(n) { var r = regions[n.region]; return r ? r.name : '?'; }
  var nodes = D.tree || [];
  var roots = [];
  nodes.forEach(function (n) { n.kids = []; });
  nodes.forEach(function (n) {
    if (n.parent === null || n.parent === undefined) roots.push(n); else nodes[n.parent].kids.push(n);
  });
  var total = roots.reduce(function (s, n) { return s + n.inclusive; }, 0);
  var ROOT = { id: -1, region: -1, inclusive: total, exclusive: 0, visits: 0, kids: roots,
    depth: -1, locations: [], parent: null };
  function nameOf(n) { return n === ROOT ? 'all (' + roots.length + ' roots)' : rname(n); }
  function parentOf(n) { return n === ROOT ? null : (n.parent === null ? ROOT : nodes[n.parent]); }
  function metricsOf(o) {
    var m = [];
    Object.keys(o).forEach(function (k) { if (!KNOWN[k] && typeof o[k] === 'number') m.push(k); });
    return m;
  }
  /* Metrics of profile.json version 2: their names in D.metrics, their values per node in
   * node.metrics.inclusive[i] and .exclusive[i] (docs/profile-format.md). */
  var METRICS = D.metrics || [];
  function metricUnit(m) { /* '' for a plain count */
    var scale = m.exponent ? '×' + (m.base || 10) + '^' + m.exponent : '';
    var unit = m.unit && m.unit !== '#' ? m.unit : '';
    return scale && unit ? scale + ' ' + unit : scale || unit;
  }
  function metricValue(n, kind, i) {
    return n.metrics && n.metrics[kind] && typeof n.metrics[kind][i] === 'number' ? n.metrics[kind][i] : 0;
  }

  var locs = {}, groups = {};
  (D.locations || []).forEach(function (l) { locs[l.id] = l; });
  (D.location_groups || []).forEach(function (g) { groups[g.id] = g; });
  var ngroups = (D.location_groups || []).length, nlocs = (D.locations || []).length;

  /* ---- summary ---- */
  (function summary() {
    var s = $('summary'), run = D.run || {};
    s.appendChild(el('div', 'title', 'instr profile: ' + (run.program || '?')));
    var parts = ['duration ' + ns(run.duration || 0), nlocs + ' thread' + (nlocs === 1 ? '' : 's')];
    if (run.mpi) parts.push(run.mpi.ranks + ' MPI ranks');
    parts.push(nodes.length + ' call paths', (D.flat || []).length + ' regions');
    if (run.timer) parts.push('timer ' + run.timer);
    s.appendChild(el('div', '', parts.join(' · ')));
    if (run.experiment_directory) s.appendChild(el('div', '', 'experiment: ' + run.experiment_directory));
    var warn = [];
    if (run.dropped_call_paths) warn.push(run.dropped_call_paths + ' call paths dropped (INSTR_TOTAL_MEMORY)');
    if (run.mpi && run.mpi.ranks_missing && run.mpi.ranks_missing.length)
      warn.push('ranks missing: ' + run.mpi.ranks_missing.join(', '));
    if (warn.length) s.appendChild(el('div', 'warn', warn.join('; ')));
  })();

  /* ---- hover ---- */
  var tip = $('tip');
  function describe(n) {
    if (n.agg) return n.agg + ' call paths, ' + ns(n.inclusive) + ' inclusive together, too small to draw (zoom in to see them)';
    if (n === ROOT) return 'all call paths: ' + ns(total);
    var r = regions[n.region] || {}, lines = [nameOf(n)];
    if (r.file) lines.push(r.file + (r.line_begin ? ':' + r.line_begin : ''));
    lines.push('inclusive ' + ns(n.inclusive) + ' (' + pct(n.inclusive, total) + ')',
      'exclusive ' + ns(n.exclusive) + ' (' + pct(n.exclusive, total) + ')',
      n.sampled ? 'sampled: ' + n.samples + ' samples (not instrumented; times are samples x period)'
                : 'visits ' + n.visits);
    metricsOf(n).forEach(function (k) { lines.push(k + ' ' + n[k]); });
    METRICS.forEach(function (m, i) {
      lines.push(m.name + ': inclusive ' + metricValue(n, 'inclusive', i) + ', exclusive ' +
        metricValue(n, 'exclusive', i) + (metricUnit(m) ? ' ' + metricUnit(m) : ''));
    });
    return lines.join('\n');
  }
  function showTip(ev, n) {
    tip.textContent = describe(n);
    tip.hidden = false;
    tip.style.left = Math.min(ev.clientX + 12, window.innerWidth - 320) + 'px';
    tip.style.top = (ev.clientY + 14) + 'px';
  }

  /* ---- icicle ---- */
  var flame = $('flame'), focus = ROOT, selected = null, query = '';
  function matches(n) { return query && n !== ROOT && !n.agg && nameOf(n).toLowerCase().indexOf(query) >= 0; }
  function frame(n, x, w, row, cls) {
    var f = el('div', 'frame' + (cls ? ' ' + cls : ''), w > 30 ? nameOf(n) : '');
    if (n.agg) f.textContent = w > 60 ? '[' + n.agg + ' small]' : '';
    f.style.left = x + 'px';
    f.style.width = w + 'px';
    f.style.top = row * ROW_PX + 'px';
    if (n.id !== undefined && !n.agg) f.dataset.node = n.id;
    if (n.sampled) f.classList.add('sampled');
    if (matches(n)) f.classList.add('match');
    if (n === selected) f.classList.add('selected');
    f.addEventListener('mousemove', function (ev) { showTip(ev, n); });
    f.addEventListener('mouseleave', function () { tip.hidden = true; });
    if (!n.agg) f.addEventListener('click', function () { select(n); zoom(n); });
    flame.appendChild(f);
  }
  function draw() {
    flame.textContent = '';
    var W = flame.clientWidth || 1200, drawn = 0, hidden = 0, rows = 0;
    var chain = [];
    for (var a = parentOf(focus); a; a = parentOf(a)) chain.unshift(a);
    chain.forEach(function (a, i) { frame(a, 0, W, i, 'ancestor'); });
    var base = chain.length, scale = focus.inclusive > 0 ? W / focus.inclusive : 0;
    /* Iterative: call trees can be thousands of levels deep. */
    var stack = [[focus, 0, W, 0]];
    while (stack.length) {
      var it = stack.pop(), n = it[0], x = it[1], w = it[2], lvl = it[3];
      frame(n, x, w, base + lvl);
      if (n !== ROOT) drawn++;
      if (base + lvl + 1 > rows) rows = base + lvl + 1;
      var cx = x, small = { agg: 0, inclusive: 0 };
      for (var i = 0; i < n.kids.length; i++) {
        var k = n.kids[i], kw = n === focus && focus.inclusive === 0 ? 0 : k.inclusive * scale;
        var subtree = count(k);
        if (kw < MIN_PX || lvl + 1 >= MAX_ROWS) {
          small.agg += subtree;
          small.inclusive += k.inclusive;
          continue;
        }
        stack.push([k, cx, kw, lvl + 1]);
        cx += kw;
      }
      if (small.agg) {
        hidden += small.agg;
        var room = x + w - cx;
        frame(small, cx, Math.max(1, Math.min(small.inclusive * scale, room)), base + lvl + 1, 'agg');
        if (base + lvl + 2 > rows) rows = base + lvl + 2;
      }
    }
    flame.style.height = (rows * ROW_PX + 2) + 'px';
    flame.dataset.frames = drawn;          /* call paths drawn as their own frame, the
                                            * focus included, its ancestors not */
    flame.dataset.aggregated = hidden;     /* call paths inside "[N small]" frames */
    flame.dataset.focus = focus.id;
  }
  var sizes = null;
  /* Nodes in n's subtree (n included), computed once bottom-up: pre-order lists children
   * after parents, so a reverse walk sees every child first. */
  function count(n) {
    if (!sizes) {
      sizes = new Array(nodes.length).fill(1);
      for (var i = nodes.length - 1; i >= 0; i--)
        if (nodes[i].parent !== null) sizes[nodes[i].parent] += sizes[i];
    }
    return n === ROOT ? nodes.length : sizes[n.id];
  }
  function zoom(n) { focus = n; draw(); }
  $('reset').addEventListener('click', function () { zoom(ROOT); });
  $('search').addEventListener('input', function (ev) {
    query = ev.target.value.trim().toLowerCase();
    var hits = 0, time = 0, open = [];
    nodes.forEach(function (n) {
      while (open.length && open[open.length - 1] >= n.depth) open.pop();
      if (matches(n)) {
        hits++;
        if (!open.length) time += n.inclusive; /* outermost matches only: no double counting */
        open.push(n.depth);
      }
    });
    $('search-info').textContent = query ? hits + ' call paths match, ' + pct(time, total) + ' of the time' : '';
    draw();
  });

  /* ---- spread over threads and ranks ---- */
  function stats(vals) {
    var min = Infinity, max = -Infinity, sum = 0, out = 0;
    vals.forEach(function (v, i) {
      if (v.v < min) min = v.v;
      if (v.v > max) max = v.v;
      sum += v.v;
    });
    var mean = vals.length ? sum / vals.length : 0;
    vals.forEach(function (v, i) { if (Math.abs(v.v - mean) > Math.abs(vals[out].v - mean)) out = i; });
    return { min: vals.length ? min : 0, max: vals.length ? max : 0, mean: mean, outlier: vals[out] };
  }
  function spreadTable(title, vals, of) {
    var box = el('div');
    box.appendChild(el('h3', '', title + ' (' + vals.length + ' of ' + of + ')'));
    if (!vals.length) return box;
    var s = stats(vals), t = el('table'), tr = el('tr');
    ['min', 'mean', 'max', 'max / mean', 'outlier'].forEach(function (h) { tr.appendChild(el('th', '', h)); });
    t.appendChild(tr);
    tr = el('tr');
    [ns(s.min), ns(Math.round(s.mean)), ns(s.max), s.mean > 0 ? (s.max / s.mean).toFixed(2) : '-',
      s.outlier.name + ' (' + ns(s.outlier.v) + ')'].forEach(function (c) { tr.appendChild(el('td', '', c)); });
    t.appendChild(tr);
    t.className = 'spread-stats';
    box.appendChild(t);
    /* One bar per location, or per slice of the sorted values when there are too many. */
    var bars = el('div', 'bars'), max = s.max || 1, sorted = vals;
    var per = Math.ceil(vals.length / MAX_BARS);
    if (per > 1) {
      sorted = vals.slice().sort(function (a, b) { return a.v - b.v; });
      box.appendChild(el('div', 'hint', 'sorted; each bar is the mean of ' + per + ' ' + title.toLowerCase()));
    }
    for (var i = 0; i < sorted.length; i += per) {
      var slice = sorted.slice(i, i + per), sum = 0;
      slice.forEach(function (v) { sum += v.v; });
      var b = el('div', 'bar' + (slice.indexOf(s.outlier) >= 0 ? ' outlier' : ''));
      b.style.height = Math.max(1, Math.round(80 * (sum / slice.length) / max)) + 'px';
      b.title = slice.length === 1 ? slice[0].name + ': ' + ns(slice[0].v) : slice[0].name + ' … ' + ns(sum / slice.length);
      bars.appendChild(b);
    }
    box.appendChild(bars);
    return box;
  }
  function select(n) {
    selected = n;
    var sp = $('spread');
    sp.textContent = '';
    if (n === ROOT) { sp.appendChild(el('div', 'hint', 'click a frame to see how its time spreads over threads and ranks')); return; }
    sp.appendChild(el('div', '', nameOf(n) + ': exclusive time per thread and per rank, inclusive in brackets in the hover'));
    var perLoc = [], perGroup = {};
    (n.locations || []).forEach(function (l) {
      var loc = locs[l.location] || { name: 'location ' + l.location, group: 0 };
      perLoc.push({ name: loc.name, v: l.exclusive });
      var g = perGroup[loc.group] || (perGroup[loc.group] = { name: (groups[loc.group] || {}).name || 'group ' + loc.group, v: 0 });
      g.v += l.exclusive;
    });
    sp.dataset.locations = perLoc.length;
    sp.appendChild(spreadTable('Threads', perLoc, nlocs));
    if (ngroups > 1) sp.appendChild(spreadTable('Ranks', Object.keys(perGroup).map(function (k) { return perGroup[k]; }), ngroups));
  }

  /* ---- flat profile ---- */
  var flat = D.flat || [], fmetrics = [];
  flat.forEach(function (f) { metricsOf(f).forEach(function (m) { if (fmetrics.indexOf(m) < 0) fmetrics.push(m); }); });
  /* The flat entries carry no metrics: per region, exclusive sums over all its call paths,
   * inclusive over its outermost ones (no caller of the same region), as flat's inclusive. */
  var regionMetrics = {};
  if (METRICS.length) {
    var onStack = {}, todo = roots.slice().reverse().map(function (n) { return [n, false]; });
    while (todo.length) {
      var item = todo.pop(), n = item[0], r = n.region;
      if (item[1]) { onStack[r]--; continue; }
      var rm = regionMetrics[r] || (regionMetrics[r] = { inclusive: [], exclusive: [] });
      METRICS.forEach(function (m, i) {
        rm.exclusive[i] = (rm.exclusive[i] || 0) + metricValue(n, 'exclusive', i);
        rm.inclusive[i] = (rm.inclusive[i] || 0) + (onStack[r] ? 0 : metricValue(n, 'inclusive', i));
      });
      onStack[r] = (onStack[r] || 0) + 1;
      todo.push([n, true]);
      for (var k = n.kids.length - 1; k >= 0; k--) todo.push([n.kids[k], false]);
    }
  }
  function regionMetric(f, kind, i) {
    var rm = regionMetrics[f.region];
    return rm ? rm[kind][i] || 0 : 0;
  }
  var cols = [
    { h: 'region', cls: 'name', key: function (f) { return (regions[f.region] || {}).name || '?'; }, fmt: String },
    { h: 'exclusive', key: function (f) { return f.exclusive; }, fmt: ns },
    { h: '% excl', key: function (f) { return f.exclusive; }, fmt: function (v) { return pct(v, total); } },
    { h: 'inclusive', key: function (f) { return f.inclusive; }, fmt: ns },
    { h: 'visits', key: function (f) { return f.visits; }, fmt: String },
    { h: 'per visit', key: function (f) { return f.visits ? f.inclusive / f.visits : 0; }, fmt: function (v) { return ns(Math.round(v)); } }
  ].concat(fmetrics.map(function (m) {
    return { h: m, key: function (f) { return f[m] || 0; }, fmt: String };
  }));
  METRICS.forEach(function (m, i) {
    ['inclusive', 'exclusive'].forEach(function (kind) {
      cols.push({ h: m.name + (kind === 'inclusive' ? ' incl' : ' excl') + (metricUnit(m) ? ' (' + metricUnit(m) + ')' : ''),
        metric: m.name, kind: kind,
        key: function (f) { return regionMetric(f, kind, i); }, fmt: String });
    });
  });
  var sortCol = 1, sortDesc = true;
  function table() {
    var thead = document.querySelector('#flat thead'), tbody = document.querySelector('#flat tbody');
    thead.textContent = '';
    tbody.textContent = '';
    var tr = el('tr');
    cols.forEach(function (c, i) {
      var th = el('th', c.cls || '', c.h);
      if (c.metric) { th.dataset.metric = c.metric; th.dataset.kind = c.kind; }
      if (i === sortCol) th.classList.add(sortDesc ? 'sorted-desc' : 'sorted-asc');
      th.addEventListener('click', function () {
        sortDesc = i === sortCol ? !sortDesc : i !== 0;
        sortCol = i;
        table();
      });
      tr.appendChild(th);
    });
    thead.appendChild(tr);
    var key = cols[sortCol].key;
    var rows = flat.slice().sort(function (a, b) {
      var x = key(a), y = key(b), c = x < y ? -1 : x > y ? 1 : 0;
      return sortDesc ? -c : c;
    });
    rows.slice(0, MAX_TABLE_ROWS).forEach(function (f) {
      var r = el('tr');
      cols.forEach(function (c) { r.appendChild(el('td', c.cls || '', c.fmt(c.key(f)))); });
      tbody.appendChild(r);
    });
    $('flat-note').textContent = rows.length > MAX_TABLE_ROWS
      ? 'showing the first ' + MAX_TABLE_ROWS + ' of ' + rows.length + ' regions in this order' : '';
    document.getElementById('flat').dataset.regions = rows.length;
  }

  /* ---- I/O (INSTR_IO: profile.json's io, docs/io.md) ----
   * As profile.txt: per paradigm, the top call paths by time in I/O, the top files by bytes,
   * per function; the job's: the sums, the slowest rank and each rank. Every row carries
   * data-io (which table) so that a reader finds them; numbers are written whole. */
  var IO_TOP = 25;
  function ioPath(id) {
    if (id === null || id === undefined) return '(outside any region)';
    var names = [];
    for (var n = nodes[id]; n; n = n.parent === null ? null : nodes[n.parent]) names.unshift(rname(n));
    return names.join(' > ');
  }
  function ioTable(kind, title, rows, label, total) {
    var box = el('div');
    var shown = rows.slice(0, IO_TOP);
    box.appendChild(el('h3', '', title + (total > shown.length ? ' (top ' + shown.length + ' of ' + total + ')' : '')));
    var t = el('table'), tr = el('tr');
    t.id = 'io-' + kind;
    t.dataset.rows = shown.length;
    t.dataset.total = total;
    ['paradigm', 'operations', 'failed', 'bytes read', 'bytes written', 'time'].concat(label ? [label] : [])
      .forEach(function (h, i) { tr.appendChild(el('th', i === 6 ? 'name' : '', h)); });
    t.appendChild(tr);
    shown.forEach(function (r) {
      var row = el('tr');
      row.dataset.io = kind;
      [r.paradigm, String(r.operations), String(r.failed), String(r.bytes_read), String(r.bytes_written),
        ns(r.time_ns)].forEach(function (c) { row.appendChild(el('td', '', c)); });
      if (label) row.appendChild(el('td', 'name', r.label));
      t.appendChild(row);
    });
    box.appendChild(t);
    return box;
  }
  (function io() {
    var IO = D.io;
    if (!IO) return;
    var box = $('io');
    $('io-section').hidden = false;
    box.appendChild(ioTable('paradigms', IO.ranks ? 'Per paradigm, over the ranks' : 'Per paradigm',
      IO.paradigms || [], null, (IO.paradigms || []).length));
    if (IO.dropped_in_handlers)
      box.appendChild(el('div', 'warn', IO.dropped_in_handlers + ' calls from signal handlers not recorded'));
    if (IO.slowest_rank) {
      var s = IO.slowest_rank, line = el('div', '', 'slowest rank ' + s.rank + ': ' + ns(s.time_ns) + ' in I/O');
      line.id = 'io-slowest';
      line.dataset.rank = s.rank;
      box.appendChild(line);
    }
    if (IO.call_paths) {
      var paths = IO.call_paths.map(function (c) {
        var r = Object.assign({}, c);
        r.label = ioPath(c.node);
        return r;
      });
      box.appendChild(ioTable('paths', 'Call paths by time in I/O', paths, 'call path', paths.length));
    }
    if (IO.files) {
      var files = IO.files.map(function (f) { var r = Object.assign({}, f); r.label = f.name; return r; });
      box.appendChild(ioTable('files', 'Files by bytes', files, 'file', files.length));
    }
    if (IO.ranks) {
      var ranks = [];
      IO.ranks.forEach(function (rk) {
        (rk.paradigms || []).forEach(function (p) {
          var r = Object.assign({}, p);
          r.label = 'rank ' + rk.rank;
          ranks.push(r);
        });
      });
      box.appendChild(ioTable('ranks', 'Per rank', ranks, 'rank', ranks.length));
    }
    if (IO.functions) {
      var fb = el('div');
      fb.appendChild(el('h3', '', 'Per function'));
      var t = el('table'), tr = el('tr');
      t.id = 'io-functions';
      ['paradigm', 'function', 'calls', 'failed', 'bytes'].forEach(function (h) { tr.appendChild(el('th', '', h)); });
      t.appendChild(tr);
      IO.functions.forEach(function (f) {
        var row = el('tr');
        row.dataset.io = 'functions';
        [f.paradigm, f['function'], String(f.calls), String(f.failed), String(f.bytes)]
          .forEach(function (c) { row.appendChild(el('td', '', c)); });
        t.appendChild(row);
      });
      fb.appendChild(t);
      box.appendChild(fb);
    }
  })();

  table();
  select(roots.length ? roots[0] : ROOT); /* the hottest root: roots come sorted by time */
  draw();
  window.addEventListener('resize', draw);
  document.body.dataset.ready = '1';
})();
