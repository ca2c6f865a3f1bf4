// Sidebar search: results grouped per task (its best or newest match first, the others one
// click away), ordered by date or relevance, filtered by agent, project and date.
//
// Keys: "/" focuses the box; ↓/↑ (and j/k once in the results) move between results; Enter
// opens the focused one; Esc closes the results and returns to the box. Recent answers stay in
// memory only (RW-060), keyed by the query and every filter.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const form = $("search-form"), input = $("search-input"), box = $("search-results");
  const filters = { order: $("search-order"), runtime: $("search-agent"), project: $("search-project"), from: $("search-from"), to: $("search-to"), archived: $("search-archived") };
  const cache = new Map();
  let generation = 0, typingTimer = null;

  // ---- filter choices, from the sidebar's tasks and projects ----------------------------
  function fillChoices() {
    const agents = new Map();
    document.querySelectorAll("#sidebar-content a.task[data-runtime]").forEach((a) => {
      const badge = a.querySelector(".rt");
      agents.set(a.dataset.runtime, badge ? badge.title : a.dataset.runtime);
    });
    const projects = new Map();
    document.querySelectorAll("#sidebar-content details.project[data-project-id]").forEach((d) => {
      projects.set(d.dataset.projectId, d.querySelector(".project-name")?.textContent || d.dataset.projectId);
    });
    refill(filters.runtime, "Any agent", agents);
    refill(filters.project, "Any project", projects);
  }
  function refill(select, anyLabel, choices) {
    const keep = select.value;
    const options = [new Option(anyLabel, "")];
    for (const [value, label] of [...choices].sort((a, b) => a[1].localeCompare(b[1]))) options.push(new Option(label, value));
    select.replaceChildren(...options);
    select.value = choices.has(keep) ? keep : "";
  }

  // ---- what a result shows --------------------------------------------------------------
  // Snippets mark matches as «…»; build text nodes and <mark>s (never innerHTML).
  function appendMarked(el, text) {
    let inMark = false;
    for (const part of text.split(/([«»])/)) {
      if (part === "«") { inMark = true; continue; }
      if (part === "»") { inMark = false; continue; }
      if (!part) continue;
      if (inMark) { const m = document.createElement("mark"); m.textContent = part; el.append(m); }
      else el.append(document.createTextNode(part));
    }
  }
  function ago(iso) {
    const then = Date.parse(iso);
    if (Number.isNaN(then)) return "";
    const s = Math.max(0, (Date.now() - then) / 1000);
    if (s < 60) return "just now";
    for (const [unit, size] of [["y", 31536000], ["mo", 2592000], ["d", 86400], ["h", 3600], ["min", 60]]) {
      if (s >= size) return Math.floor(s / size) + " " + unit + " ago";
    }
    return "";
  }
  function timeEl(iso) {
    const t = document.createElement("time");
    t.dateTime = iso || "";
    t.textContent = iso ? ago(iso) : "";
    if (iso) t.title = new Date(iso).toLocaleString();
    return t;
  }
  function sidebarLink(r) {
    return [...document.querySelectorAll("#sidebar-content a.task")]
      .find((a) => a.dataset.deviceId === r.deviceId && a.dataset.localTaskId === r.localTaskId);
  }
  function projectName(r) {
    const project = sidebarLink(r)?.closest("details.project");
    if (project) return project.querySelector(".project-name")?.textContent || "";
    if (sidebarLink(r)) return "Conversation";
    const path = r.workspacePath || "";
    return path ? path.replace(/\/+$/, "").split("/").pop() : "";
  }
  function agentName(r) {
    const option = [...filters.runtime.options].find((o) => o.value === r.runtime);
    return option && option.value ? option.textContent : r.runtime;
  }
  const roleLabel = { user: "you", assistant: "agent", title: "title" };

  function hitButton(r, match, className) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = className;
    button.dataset.deviceId = r.deviceId;
    button.dataset.localTaskId = r.localTaskId;
    button.dataset.index = match.messageIndex ?? "";
    return button;
  }
  function matchLine(match) {
    const line = document.createElement("span");
    line.className = "snippet";
    const role = document.createElement("span");
    role.className = "role";
    role.textContent = roleLabel[match.role] || match.role;
    line.append(role, " ");
    appendMarked(line, match.snippet || "");
    return line;
  }

  function renderGroup(r) {
    const group = document.createElement("section");
    group.className = "search-group";
    const matches = r.matches && r.matches.length ? r.matches : [{ messageIndex: r.messageIndex, role: r.role, snippet: r.snippet, createdAt: null }];
    const main = hitButton(r, matches[0], "search-result search-hit");
    const title = document.createElement("strong");
    title.textContent = r.title || "(untitled)";
    const meta = document.createElement("span");
    meta.className = "search-meta";
    const agent = document.createElement("span");
    agent.className = "search-agent";
    agent.textContent = agentName(r);
    const where = document.createElement("span");
    where.className = "search-project";
    where.textContent = projectName(r);
    meta.append(agent, where, timeEl(r.updatedAt));
    main.append(title, meta, matchLine(matches[0]));
    group.append(main);
    const more = (r.matchCount || matches.length) - 1;
    if (more > 0) {
      const toggle = document.createElement("button");
      toggle.type = "button";
      toggle.className = "search-more link";
      toggle.setAttribute("aria-expanded", "false");
      toggle.textContent = `${more} more match${more === 1 ? "" : "es"} in this task`;
      const list = document.createElement("div");
      list.className = "search-matches";
      list.hidden = true;
      for (const match of matches.slice(1)) {
        const b = hitButton(r, match, "search-hit search-match");
        b.append(matchLine(match));
        if (match.createdAt) b.append(timeEl(match.createdAt));
        list.append(b);
      }
      if (more > matches.length - 1) {
        const rest = document.createElement("p");
        rest.className = "muted";
        rest.textContent = `and ${more - (matches.length - 1)} older — open the task to see all`;
        list.append(rest);
      }
      toggle.addEventListener("click", () => {
        list.hidden = !list.hidden;
        toggle.setAttribute("aria-expanded", String(!list.hidden));
      });
      group.append(toggle, list);
    }
    return group;
  }

  function render(data) {
    box.replaceChildren();
    box.hidden = false;
    box.removeAttribute("aria-busy");
    const results = data.results || [];
    const head = document.createElement("p");
    head.className = "search-count";
    head.textContent = results.length ? `${results.length} task${results.length === 1 ? "" : "s"} match` : "No matches.";
    if (data.indexing) head.textContent += " (still indexing: results so far)";
    box.append(head);
    for (const r of results) box.append(renderGroup(r));
  }

  // ---- running a search -----------------------------------------------------------------
  function request() {
    const body = { query: input.value.trim(), limit: 30, includeArchived: filters.archived.checked, order: filters.order.value };
    if (filters.runtime.value) body.runtime = filters.runtime.value;
    if (filters.project.value) body.projectId = filters.project.value;
    if (filters.from.value) body.updatedAfter = filters.from.value;
    if (filters.to.value) { // the "to" day is included: stop before the next day starts
      const next = new Date(filters.to.value + "T00:00:00Z");
      next.setUTCDate(next.getUTCDate() + 1);
      body.updatedBefore = next.toISOString().slice(0, 10);
    }
    return body;
  }
  async function run() {
    const body = request();
    if (!body.query) { close(); return; }
    const key = JSON.stringify(body);
    if (cache.has(key)) return render(cache.get(key));
    const mine = ++generation;
    box.hidden = false;
    box.setAttribute("aria-busy", "true");
    box.replaceChildren(Object.assign(document.createElement("p"), { className: "search-loading", textContent: "Searching…" }));
    try {
      const data = await hangar.api("/api/runtime-work/search", body);
      cache.set(key, data);
      if (mine === generation) render(data);
    } catch (err) {
      if (mine !== generation) return;
      box.removeAttribute("aria-busy");
      box.replaceChildren(Object.assign(document.createElement("p"), { className: "error", textContent: err.message }));
    }
  }
  function close() {
    generation += 1;
    box.hidden = true;
    box.replaceChildren();
  }
  function open(button) {
    const index = button.dataset.index;
    window.hangarRuntime.open(button.dataset.deviceId, button.dataset.localTaskId, { targetIndex: index === "" ? null : Number(index) });
  }

  form.addEventListener("submit", (event) => { event.preventDefault(); clearTimeout(typingTimer); run(); });
  input.addEventListener("input", () => { clearTimeout(typingTimer); typingTimer = setTimeout(run, 300); });
  for (const el of Object.values(filters)) el.addEventListener("change", () => { if (input.value.trim()) run(); });
  box.addEventListener("click", (event) => {
    const hit = event.target.closest(".search-hit");
    if (hit) open(hit);
  });

  // ---- keys -----------------------------------------------------------------------------
  const visibleHits = () => [...box.querySelectorAll(".search-hit")].filter((b) => b.offsetParent !== null);
  function move(step) {
    const hits = visibleHits();
    if (!hits.length) return;
    const at = hits.indexOf(document.activeElement);
    const next = at < 0 ? (step > 0 ? 0 : hits.length - 1) : Math.min(hits.length - 1, Math.max(0, at + step));
    hits[next].focus();
  }
  input.addEventListener("keydown", (event) => {
    if (event.key === "ArrowDown" && !box.hidden) { event.preventDefault(); move(1); }
    else if (event.key === "Escape") { event.preventDefault(); input.value = ""; close(); }
  });
  box.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const key = event.key;
    if (key === "ArrowDown" || key === "j") { event.preventDefault(); move(1); }
    else if (key === "ArrowUp" || key === "k") {
      event.preventDefault();
      if (visibleHits().indexOf(document.activeElement) <= 0) input.focus(); else move(-1);
    } else if (key === "Escape") { event.preventDefault(); close(); input.focus(); }
    event.stopPropagation(); // the transcript's own keys (keys.js) do not apply here
  });
  document.addEventListener("keydown", (event) => {
    if (event.key !== "/" || event.altKey || event.ctrlKey || event.metaKey) return;
    const t = event.target;
    if (t.closest && t.closest("input, textarea, select, [contenteditable], dialog")) return;
    event.preventDefault();
    $("layout").classList.add("sidebar-open"); // a narrow window shows the drawer first
    $("sidebar").inert = false; // at once: keys.js would lift it only after this handler
    input.focus();
    input.select();
  });

  document.addEventListener("hangar:sidebar-refreshed", fillChoices);
  fillChoices();
})();
