// Live execution logs of an issue's local runs: fetch messages after the last seq, then
// follow /api/events (local_run.message, local_run.changed). Text is set with textContent only.
"use strict";
(() => {
  const section = document.getElementById("local-runs");
  if (!section) return;
  const logs = new Map();
  section.querySelectorAll("li.run").forEach((li) => logs.set(li.dataset.runId, li));

  const MARKS = { completed: "✓", in_progress: "▸", cancelled: "✕", pending: "○" };

  // A provider's checklist update (input.kind = "checklist"): the agent's list, item by item.
  function checklistLine(message, item) {
    const label = document.createElement("span");
    label.className = "run-msg-type";
    label.textContent = "checklist";
    const list = document.createElement("ol");
    list.className = "checklist-items";
    for (const entry of message.input.checklist.items || []) {
      const row = document.createElement("li");
      row.className = "cl cl-" + entry.status;
      const mark = document.createElement("span");
      mark.className = "cl-mark";
      mark.setAttribute("aria-label", entry.status);
      mark.textContent = MARKS[entry.status] || "○";
      row.append(mark, " " + entry.content);
      list.append(row);
    }
    if (!list.children.length) list.textContent = "Checklist cleared";
    item.className += " run-msg-checklist";
    item.append(label, list);
    return item;
  }

  function line(message) {
    const item = document.createElement("li");
    item.className = "run-msg run-msg-" + message.type;
    item.dataset.seq = message.seq;
    const input = message.input || {};
    if (message.type === "text" && input.kind === "checklist" && input.checklist) {
      return checklistLine(message, item);
    }
    const label = document.createElement("span");
    label.className = "run-msg-type";
    label.textContent = message.tool ? message.type + " · " + message.tool : message.type;
    const body = document.createElement("pre");
    body.className = "run-msg-body";
    let text = message.content || "";
    if (message.type === "tool_use" && message.input) {
      const input = message.input.input || message.input.command || message.input.paths;
      text = typeof input === "string" ? input : JSON.stringify(input);
    }
    if (message.type === "tool_result") text = message.output || "";
    body.textContent = text.length > 4000 ? text.slice(0, 4000) + "…" : text;
    item.append(label, body);
    return item;
  }

  async function refresh(runId) {
    const li = logs.get(runId);
    if (!li) return;
    const list = li.querySelector(".run-log");
    for (;;) {
      const since = Number(list.dataset.since || 0);
      const data = await hangar.api(`/api/local-runs/${encodeURIComponent(runId)}/messages?since=${since}`);
      data.messages.forEach((m) => list.append(line(m)));
      list.dataset.since = data.nextSince;
      if (data.messages.length < 500) return;
    }
  }

  async function status(runId) {
    const li = logs.get(runId);
    if (!li) { location.reload(); return; }  // a new run of this issue: show it
    const run = await hangar.api(`/api/local-runs/${encodeURIComponent(runId)}`);
    const badge = li.querySelector(".run-status");
    badge.textContent = run.status;
    badge.className = "status run-status status-" + run.status;
  }

  logs.forEach((_li, runId) => refresh(runId).catch(() => {}));
  const events = hangar.events(() => logs.forEach((_li, runId) => {
    refresh(runId).catch(() => {});
    status(runId).catch(() => {});
  }));
  events.addEventListener("local_run.message", (event) => {
    const data = JSON.parse(event.data);
    if (logs.has(data.runId)) refresh(data.runId).catch(() => {});
  });
  events.addEventListener("local_run.changed", (event) => {
    const data = JSON.parse(event.data);
    if (data.issueKey === section.dataset.issueKey) status(data.runId).catch(() => {});
  });
})();
