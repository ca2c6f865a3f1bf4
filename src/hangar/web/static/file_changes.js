// File-change cards: review a turn's diff and revert it, on the task's own device (RW-242..247).
//
// The card asks the device command for the turn's artifact `turn-file-changes/0/<turnId>`
// with the open task's deviceId + workspacePath (never a central task API, RW-242). What the
// device answers — the diff, a revert, a missing artifact, a conflict — is kept per turn and
// written back onto the card every time the transcript re-renders it, so a card never shows a
// stale Revert button after the device said no (RW-247). A turn with several cards gets its
// actions on the last one (the artifact covers the whole turn).
"use strict";
(() => {
  const messages = document.getElementById("messages");
  if (!messages) return;
  const states = new Map(); // deviceId|localTaskId|turnId -> {state, text, review}

  const taskOf = () => hangarTools.task();
  const keyOf = (turnId) => { const t = taskOf(); return t ? `${t.deviceId}|${t.localTaskId}|${turnId}` : ""; };
  const address = (turnId) => {
    const t = taskOf();
    return { deviceId: t.deviceId, localTaskId: t.localTaskId, workspacePath: t.workspacePath, artifactId: `turn-file-changes/0/${turnId}` };
  };

  function diffLines(patch) {
    const lines = patch.split("\n");
    if (lines.length && lines[lines.length - 1] === "") lines.pop();
    return lines.map((line) => {
      const span = document.createElement("span");
      span.className = "dl " + (/^(diff --git|index |--- |\+\+\+ |new file|deleted file|rename |similarity|old mode|new mode)/.test(line) ? "dl-meta"
        : line.startsWith("@@") ? "dl-hunk" : line.startsWith("+") ? "dl-add" : line.startsWith("-") ? "dl-del" : "dl-ctx");
      span.textContent = line + "\n";
      return span;
    });
  }

  const NOTES = {
    applied: "The turn's changes are in the directory.",
    reverted: "Reverted: the files are as before this turn.",
    conflict: "Conflict: the files changed since this turn.",
    not_revertible: "Not revertible.",
    missing: "The turn's changes are no longer available.",
    stale: "The changes are not the ones reviewed: review again.",
  };

  // Puts the kept state of this card's turn onto the card (after every render).
  function paint(card) {
    const turnId = card.dataset.turnId;
    const actions = card.querySelector(".fc-actions");
    if (!actions) return;
    const kept = states.get(keyOf(turnId));
    const review = actions.querySelector("[data-fc=review]"), revert = actions.querySelector("[data-fc=revert]");
    const diff = card.querySelector(".fc-diff");
    card.dataset.fcState = kept ? kept.state : "";
    actions.querySelector(".fc-state").textContent = kept ? (kept.text || NOTES[kept.state] || kept.state) : "";
    revert.disabled = !(kept && kept.state === "applied" && kept.review && kept.review.revertible);
    revert.hidden = Boolean(kept && ["reverted", "missing", "not_revertible"].includes(kept.state));
    review.disabled = Boolean(kept && kept.state === "missing");
    if (kept && kept.review && kept.showDiff) {
      diff.replaceChildren(...diffLines(kept.review.patch));
      diff.hidden = false;
      review.textContent = "Hide diff";
    } else {
      diff.hidden = true;
      review.textContent = "Review diff";
    }
  }

  function paintAll() {
    const last = new Map();
    for (const card of messages.querySelectorAll(".files[data-turn-id]")) {
      if (card.dataset.turnId) last.set(card.dataset.turnId, card);
    }
    for (const card of messages.querySelectorAll(".files[data-turn-id]")) {
      const actions = card.querySelector(".fc-actions");
      if (!actions) continue;
      const mine = last.get(card.dataset.turnId) === card;
      actions.hidden = !mine;
      if (mine) paint(card);
    }
  }

  function keep(turnId, value) {
    const key = keyOf(turnId);
    states.set(key, { ...(states.get(key) || {}), ...value });
    paintAll();
  }

  function failed(turnId, err) {
    const state = { file_changes_missing: "missing", file_changes_conflict: "conflict", file_changes_already_reverted: "reverted",
      file_changes_not_revertible: "not_revertible", file_changes_stale: "stale" }[err.code];
    if (state) {
      const path = err.details && err.details.path ? ` (${err.details.path})` : "";
      keep(turnId, { state, text: `${NOTES[state]}${path} ${err.message}`.trim(), review: state === "conflict" || state === "stale" ? null : states.get(keyOf(turnId))?.review, showDiff: false });
    } else {
      hangar.status(err.message);
    }
  }

  async function review(turnId, toggleOnly) {
    const kept = states.get(keyOf(turnId));
    if (toggleOnly && kept && kept.review && kept.showDiff) return keep(turnId, { showDiff: false });
    try {
      const found = await hangar.api("/api/runtime-work/file-changes/review", address(turnId));
      const text = found.state === "conflict" && found.conflict ? `${NOTES.conflict} ${found.conflict.path}: ${found.conflict.message}`
        : found.state === "not_revertible" ? `${NOTES.not_revertible} ${found.files.filter((f) => !f.revertible).map((f) => `${f.path}: ${f.reason}`).join("; ")}` : "";
      keep(turnId, { state: found.state, text, review: found, showDiff: true });
    } catch (err) { failed(turnId, err); }
  }

  async function revert(turnId) {
    const kept = states.get(keyOf(turnId));
    if (!kept || !kept.review) return;
    const count = kept.review.files.length;
    const ok = await hangar.ask(`Revert the ${count} file${count === 1 ? "" : "s"} this turn changed? The current versions are copied to the trash first.`, { okLabel: "Revert" });
    if (!ok) return;
    try {
      const done = await hangar.api("/api/runtime-work/file-changes/revert", { ...address(turnId), checksum: kept.review.checksum });
      keep(turnId, { state: "reverted", text: `${NOTES.reverted} ${done.files.map((f) => `${f.path} ${f.action}`).join(", ")}`, showDiff: false });
    } catch (err) { failed(turnId, err); }
  }

  messages.addEventListener("click", (event) => {
    const button = event.target.closest(".fc-actions button[data-fc]");
    if (!button) return;
    event.preventDefault();
    const turnId = button.closest(".files").dataset.turnId;
    if (button.dataset.fc === "review") review(turnId, true);
    else revert(turnId);
  });
  // The transcript re-renders messages (live updates, paging): paint the kept states again.
  new MutationObserver(paintAll).observe(messages, { childList: true });
  hangarTools.onChange(paintAll);
})();
