// formhunter web page: live updates of a running crawl (polls /api/runs/ID every second).
// The pages work without this script; it only refreshes the numbers and the curve.
"use strict";
(function () {
  var run = document.getElementById("run");
  if (!run || run.dataset.poll !== "yes") return;
  var id = run.dataset.run;
  function set(elId, value) {
    var el = document.getElementById(elId);
    if (el && value !== undefined && value !== null) el.textContent = String(value);
  }
  function draw(curve) {
    var svg = document.getElementById("curve"), line = document.getElementById("line");
    if (!svg || !line || !curve || !curve.length) return;
    var w = svg.viewBox.baseVal.width, h = svg.viewBox.baseVal.height;
    var xmax = 1, ymax = 1;
    curve.forEach(function (p) { xmax = Math.max(xmax, p[0]); ymax = Math.max(ymax, p[1]); });
    line.setAttribute("points", curve.map(function (p) {
      return (40 + p[0] / xmax * (w - 50)).toFixed(1) + "," + (h - 25 - p[1] / ymax * (h - 40)).toFixed(1);
    }).join(" "));
    set("xmax", xmax + " pages");
    set("ymax", ymax);
  }
  function tick() {
    fetch("/api/runs/" + id, { headers: { "Accept": "application/json" } })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (d) {
        if (!d) return;
        var live = d.live, r = d.run;
        set("pages", live ? live.pages : r.pages);
        set("pps", d.pages_per_second);
        set("forms", live ? live.forms : r.forms);
        set("searchable", live ? live.searchable : r.searchable_forms);
        set("relevant", live ? live.relevant : r.relevant_forms);
        set("harvest", (live ? live.harvest_rate : r.harvest_rate).toFixed(4));
        set("learning", live ? live.learning_iterations : r.learning_iterations);
        set("sites-relevant", r.sites_relevant);
        set("sites", r.sites);
        set("sites-without", r.domain_sites_without);
        set("pages-per-site", r.pages_per_site.toFixed(1));
        // once the crawl has ended, the run's row says how (finished, interrupted)
        var state = live && live.state !== "ended" ? live.state : r.status;
        set("state", state);
        var badge = document.getElementById("state");
        if (badge) badge.className = "status " + state;
        set("status-text", r.status + (r.end_reason ? " (" + r.end_reason + ")" : ""));
        draw(d.curve);
        if (d.learning && d.learning.length) renderLearning(d.learning);
        var done = live ? live.state === "ended" : r.status !== "running";
        if (!done) setTimeout(tick, 1000);
      })
      .catch(function () { setTimeout(tick, 3000); });
  }
  function renderLearning(items) {
    var box = document.getElementById("learning-list");
    if (!box) return;
    var table = document.createElement("table");
    table.className = "grid";
    var head = table.createTHead().insertRow();
    ["#", "at page", "learner", "paths", "terms chosen"].forEach(function (t) {
      var th = document.createElement("th"); th.textContent = t; head.appendChild(th);
    });
    var body = table.createTBody();
    items.forEach(function (it) {
      var tr = body.insertRow();
      [it.iteration, it.at_page, it.learner, it.n_paths].forEach(function (v) { tr.insertCell().textContent = String(v); });
      var td = tr.insertCell();
      Object.keys(it.terms || {}).filter(function (s) { return it.terms[s].length; }).forEach(function (space) {
        var div = document.createElement("div"), b = document.createElement("b");
        b.textContent = space; div.appendChild(b);
        div.appendChild(document.createTextNode(": " + it.terms[space].join(", ")));
        td.appendChild(div);
      });
    });
    box.replaceChildren(table);
  }
  setTimeout(tick, 1000);
})();
