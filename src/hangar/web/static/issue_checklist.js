// The agent's checklist on an issue page: re-rendered by the server whenever one of the
// issue's runs stores a checklist update (local_run.checklist) or a run changes, and on each
// (re)connection of the event stream or `hub.resync`, so an update made while it was down is
// not missed.
"use strict";
(() => {
  const section = document.getElementById("issue-checklist");
  if (!section) return;
  const key = section.dataset.issueKey;

  async function refresh() {
    const html = await hangar.html(`/issues/${encodeURIComponent(key)}/checklist`);
    const holder = document.createElement("div");
    holder.innerHTML = html;  // server-rendered and escaped by the template
    const fresh = holder.querySelector("#issue-checklist");
    const current = document.getElementById("issue-checklist");
    if (fresh && current) current.replaceWith(fresh);
  }

  const runIds = () => new Set([...document.querySelectorAll("#local-runs li.run")].map((li) => li.dataset.runId));
  const events = hangar.events(() => refresh().catch(() => {}), { firstOpen: true });
  events.addEventListener("local_run.checklist", (event) => {
    const data = JSON.parse(event.data);
    if (runIds().has(data.runId)) refresh().catch(() => {});
  });
  events.addEventListener("local_run.changed", (event) => {
    const data = JSON.parse(event.data);
    if (data.issueKey === key) refresh().catch(() => {});
  });
})();
