// The issue list's "Agent checklist" column, kept live: when a run stores a checklist update
// (local_run.checklist) or a run changes, the server renders the same list again and each
// shown row's progress cell is swapped for the fresh one. Rows are never added or removed
// here: the filters the user chose stay as they were. Each (re)connection refreshes too, so an
// update made while the stream was down is not missed.
"use strict";
(() => {
  const table = document.querySelector("table.issues");
  if (!table) return;
  let timer = null;

  async function refresh() {
    const html = await hangar.html(location.pathname + location.search);
    const holder = document.createElement("div");
    holder.innerHTML = html;  // server-rendered and escaped by the template
    for (const fresh of holder.querySelectorAll("tr[data-issue-key] td.plan-cell")) {
      const key = fresh.parentElement.dataset.issueKey;
      const row = [...table.querySelectorAll("tr[data-issue-key]")].find((r) => r.dataset.issueKey === key);
      const cell = row && row.querySelector("td.plan-cell");
      if (cell) cell.replaceWith(fresh);
    }
  }

  function soon() {
    clearTimeout(timer);  // a burst of updates is one refresh
    timer = setTimeout(() => refresh().catch(() => {}), 250);
  }

  const events = hangar.events(soon, { firstOpen: true });
  events.addEventListener("local_run.checklist", soon);
  events.addEventListener("local_run.changed", soon);
})();
