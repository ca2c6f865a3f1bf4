// The task pane's composer: continue the open task, watch its reply stream in, queue,
// guidance, compact, approvals and attachments.
//
// A reply that is not yet in the agent's transcript is shown from the `runtime.turn` events as
// an in-memory live projection (RW-140), kept per task so switching back shows it (RW-141),
// never persisted and never merged with the transcript: transcript messages of the live turn
// are hidden while it runs, and once the refreshed transcript has the finished turn the
// projection is dropped and the transcript takes over entirely (RW-142, RW-143). The turn's
// identity is its subtaskId (RW-107); a send while a reply runs is queued, never sent
// concurrently (RW-124). No inline scripts or handlers: everything is bound here.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const runtime = window.hangarRuntime;
  const form = $("composer");
  if (!runtime || !form) return;
  const input = $("composer-input"), picker = $("model-picker"), effort = $("effort-picker");
  const liveEl = $("live-turn"), approvalsEl = $("approvals"), queueEl = $("queue");
  const queueItems = $("queue-items"), note = $("composer-note"), messagesEl = $("messages");
  const previews = $("attachment-previews"), attachInput = $("attach-input");
  const TERMINAL = new Set(["response.completed", "response.failed", "response.incomplete"]);
  const tasks = new Map();
  let currentKey = "", capabilities = { runtime: "", operations: [], models: [] };

  const keyOf = (deviceId, localTaskId) => deviceId + "\u0000" + localTaskId;
  const newId = () => (crypto.randomUUID ? crypto.randomUUID() : String(Date.now()) + Math.random().toString(16).slice(2));
  function taskState(key) {
    if (!tasks.has(key)) tasks.set(key, { live: null, compaction: null, queue: [], approvals: new Map(), files: [] });
    return tasks.get(key);
  }
  const here = () => taskState(currentKey);
  const address = () => runtime.current();
  const replying = (st) => Boolean((st.live && st.live.status === "running") || (st.compaction && st.compaction.status === "running"));
  const can = (operation) => capabilities.operations.includes(operation);
  function say(text) { note.textContent = text || ""; }
  function log(kind, data, outcome) {
    // RW-117/118: terminal events at the pane boundary, identity/type/blocks only.
    console.debug("hangar turn", kind, outcome, data.deviceId, data.taskId, data.subtaskId, data.blockCount);
  }

  // ---- the live projection ----------------------------------------------------------------
  function newLive(userText, files) {
    return { subtaskId: null, status: "running", kind: "reply", userText, files: files || [], error: "",
      segments: [{ type: "assistant", text: "", tools: [] }], clientUserMessageId: newId() };
  }
  function lastAssistant(live) {
    for (let i = live.segments.length - 1; i >= 0; i--) if (live.segments[i].type === "assistant") return live.segments[i];
    const seg = { type: "assistant", text: "", tools: [] };
    live.segments.push(seg);
    return seg;
  }
  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function bubble(role, label, text, extra) {
    const article = el("article", `msg msg-${role} live` + (extra ? " " + extra : ""));
    const head = el("header", "msg-head");
    head.append(el("span", "role", label));
    article.append(head);
    if (text) article.append(el("div", "live-text", text));
    return article;
  }
  function renderLive() {
    const st = here();
    liveEl.replaceChildren();
    const live = st.live;
    if (live) {
      if (live.userText || live.files.length) {
        const user = bubble("user", "You", live.userText, "live-user");
        for (const name of live.files) user.append(el("div", "attachment", "📎 " + name));
        liveEl.append(user);
      }
      live.segments.forEach((seg, i) => {
        if (seg.type === "guidance") {
          liveEl.append(bubble("user", seg.confirmed ? "You · guidance" : "You · guidance (sending…)", seg.text, "live-guidance"));
          return;
        }
        const last = i === live.segments.length - 1;
        if (!seg.text && !seg.tools.length && !(last && live.status === "running")) return;
        const streaming = last && live.status === "running";
        const article = bubble("assistant", "Assistant", "", streaming ? "streaming" : "frozen");
        article.dataset.subtaskId = live.subtaskId || "";
        for (const tool of seg.tools) {
          const chip = el("div", `tool-chip tool-${tool.status}`);
          chip.append(el("span", "tool-name", tool.name), document.createTextNode(" "), el("code", "cmd", tool.summary || ""),
            document.createTextNode(" "), el("span", "tool-status", tool.status));
          article.append(chip);
        }
        article.append(el("div", "live-text", seg.text || (streaming ? "…" : "")));
        liveEl.append(article);
      });
      if (live.status === "failed") {
        const card = el("div", "failure-card");
        card.setAttribute("role", "alert");
        card.append(el("strong", "", "The reply failed. "), el("span", "failure-text", live.error || ""));
        if (live.subtaskId || live.userText) {
          const retry = el("button", "", "Retry");
          retry.type = "button";
          retry.className = "retry-button";
          retry.addEventListener("click", () => retryFailed(live));
          card.append(document.createTextNode(" "), retry);
        }
        liveEl.append(card);
      } else if (live.status === "interrupted") {
        liveEl.append(el("p", "muted live-stopped", "Reply stopped."));
      }
    }
    if (st.compaction) {
      const done = st.compaction.status !== "running";
      const msg = el("div", "compaction live-compaction", done ? (st.compaction.status === "completed" ? "Context compacted" : "Compaction " + st.compaction.status) : "Compacting the context…");
      liveEl.append(msg);
    }
    cover();
    renderControls();
  }
  // Transcript messages of a live turn stay hidden while it is live (never shown twice).
  function cover() {
    const live = here().live;
    messagesEl.querySelectorAll("article.msg.covered-by-live").forEach((a) => a.classList.remove("covered-by-live"));
    if (live && live.subtaskId) {
      // A projection restored after a reload has no user text: the transcript's stays.
      const selector = live.userText ? "article.msg" : "article.msg-assistant";
      messagesEl.querySelectorAll(selector).forEach((a) => {
        if (a.dataset.turnId === live.subtaskId) a.classList.add("covered-by-live");
      });
    }
  }
  // RW-142: the refreshed transcript takes over a finished turn entirely.
  function takeOver() {
    const st = here();
    const live = st.live;
    if (live && live.subtaskId && (live.status === "completed" || live.status === "interrupted")) {
      const covered = [...messagesEl.querySelectorAll("article.msg-assistant")].some((a) => a.dataset.turnId === live.subtaskId);
      if (covered || live.status === "interrupted" && !live.segments.some((s) => s.text)) st.live = null;
    }
    if (st.compaction && st.compaction.status !== "running") st.compaction = null;
    renderLive();
  }

  // ---- sending ------------------------------------------------------------------------------
  function selection() {
    const option = picker.selectedOptions[0];
    if (!option || !option.value) return null;
    const model = capabilities.models[Number(option.value)];
    const chosen = { modelId: model.id, modelType: model.modelType };
    if (!effort.hidden && effort.value) chosen.options = { effort: effort.value };
    return chosen;
  }
  // Skill and plugin tags in a message (`$skill`, `$plugin:skill`, `@Plugin`): sent as
  // references beside the text, so a reopened task still shows them as tags (RW-231).
  const REFERENCE = /(?<![\w$@])(\$[a-z][a-z0-9_-]*(?::[a-z0-9][a-z0-9_.-]*)?|@[A-Z][A-Za-z0-9_-]*)(?![\w/.-]*[\w/])/g;
  function referencesIn(text) {
    const found = [];
    for (const match of (text || "").matchAll(REFERENCE)) {
      const token = match[1];
      found.push({ token, href: (token[0] === "$" ? "skill:" : "plugin:") + token.slice(1) });
      if (found.length >= 32) break;
    }
    return found;
  }
  async function send(text, files, retryOf) {
    const st = here(), key = currentKey, where = address();
    const model = selection();
    if (!model) { say("Choose a model first: every message says which model answers it."); picker.focus(); return false; }
    const live = newLive(text, (files || []).map((f) => f.name));
    if (retryOf) live.retryOf = retryOf;
    st.live = live;
    renderLive();
    const body = { deviceId: where.deviceId, localTaskId: where.localTaskId, text: retryOf ? "" : text, model,
      attachmentIds: (files || []).map((f) => f.attachmentId), clientUserMessageId: live.clientUserMessageId,
      references: retryOf ? [] : referencesIn(text) };
    if (retryOf) body.retryOf = retryOf;
    try {
      const accepted = await hangar.api("/api/runtime-work/send", body);
      if (!live.subtaskId) live.subtaskId = accepted.subtaskId;
      localStorage.setItem("hangar.model." + capabilities.runtime, JSON.stringify(model));
    } catch (err) {
      if (/still replying/.test(err.message)) {
        taskState(key).queue.unshift({ id: newId(), text, files: files || [] });
        if (taskState(key).live === live) taskState(key).live = null;
      } else {
        live.status = "failed";
        live.error = err.message;
      }
    }
    if (key === currentKey) renderLive();
    return true;
  }
  // RW-116: the retry is bound to the failed turn; the executor sends that turn's own input.
  function retryFailed(live) {
    if (live.subtaskId) send(live.userText, [], live.subtaskId);
    else send(live.userText, []);
  }
  function flushQueue(key) {
    const st = taskState(key);
    if (replying(st) || !st.queue.length || key !== currentKey) return;
    const next = st.queue.shift();
    send(next.text, next.files);
  }
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = input.value.trim();
    const st = here();
    if (!text && !st.files.length) return;
    const files = st.files.splice(0);
    renderPreviews();
    input.value = "";
    if (replying(st)) {
      st.queue.push({ id: newId(), text, files });
      say("Queued: it is sent when the reply finishes.");
      renderControls();
      return;
    }
    send(text, files).then((sent) => { if (!sent) { input.value = text; st.files.push(...files); renderPreviews(); } });
  });
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      form.requestSubmit();
    }
  });

  // ---- queue, stop, guidance ----------------------------------------------------------------
  function renderControls() {
    const st = here(), busy = replying(st);
    queueEl.hidden = !st.queue.length;
    queueItems.replaceChildren(...st.queue.map((item) => {
      const li = el("li", "queued");
      li.append(el("span", "queued-text", item.text || item.files.map((f) => f.name).join(", ")));
      if (busy && can("guidance") && st.live && st.live.status === "running") {
        const guide = el("button", "guide-queued", "Send as guidance");
        guide.type = "button";
        guide.addEventListener("click", () => { st.queue = st.queue.filter((q) => q !== item); sendGuidance(item.text); });
        li.append(guide);
      }
      const drop = el("button", "cancel-queued", "×");
      drop.type = "button";
      drop.setAttribute("aria-label", "Cancel this queued message");
      drop.addEventListener("click", () => { st.queue = st.queue.filter((q) => q !== item); renderControls(); }); // RW-125
      li.append(drop);
      return li;
    }));
    $("stop-button").hidden = !(busy && can("cancel") && st.live && st.live.status === "running");
    $("guidance-button").hidden = !(busy && can("guidance") && st.live && st.live.status === "running");
    const compactButton = $("compact-button");
    compactButton.hidden = !can("compact");
    // Still clickable while replying: the click says why it waits (RW-150).
    compactButton.classList.toggle("blocked", busy);
    compactButton.title = busy ? "Wait for the reply to finish before compacting" : "Compact the conversation's context";
    $("send-button").textContent = busy ? "Queue" : "Send";
  }
  async function stop() {
    const where = address();
    try {
      const result = await hangar.api("/api/runtime-work/cancel", where);
      // RW-128: a turn this hub cannot interrupt keeps the queue until it ends.
      say(result.accepted ? "Stopping the reply…" : "This reply cannot be interrupted from here; queued messages wait until it ends.");
    } catch (err) { say(err.message); }
  }
  $("stop-button").addEventListener("click", stop);
  $("pause-and-send").addEventListener("click", stop); // RW-126: cancel first; the queue follows

  async function sendGuidance(text) {
    const st = here(), live = st.live, where = address();
    if (!text || !live || live.status !== "running") return;
    // RW-135/136: split at once: the text so far is frozen, the rest keeps the subtaskId.
    const before = lastAssistant(live);
    before.frozen = true;
    const clientGuidanceId = newId();
    const prefix = live.segments.filter((s) => s.type === "assistant").map((s) => s.text).join("");
    const guidance = { type: "guidance", text, clientGuidanceId, confirmed: false };
    const after = { type: "assistant", text: "", tools: [], prefix: prefix.length };
    live.segments.push(guidance, after);
    renderLive();
    try {
      const result = await hangar.api("/api/runtime-work/guidance", { ...where, text, clientGuidanceId });
      if (result.outcome === "no_active_turn") { // RW-133: an ordinary follow-up instead
        live.segments = live.segments.filter((s) => s !== guidance && s !== after);
        before.frozen = false;
        st.queue.unshift({ id: newId(), text, files: [] });
        renderLive();
        flushQueue(currentKey);
      }
    } catch (err) {
      live.segments = live.segments.filter((s) => s !== guidance && s !== after);
      st.queue.unshift({ id: newId(), text, files: [] });
      say(err.message);
      renderLive();
    }
  }
  $("guidance-button").addEventListener("click", () => {
    const text = input.value.trim();
    if (!text) { say("Type the guidance first."); input.focus(); return; }
    input.value = "";
    sendGuidance(text);
  });

  // ---- compact --------------------------------------------------------------------------------
  $("compact-button").addEventListener("click", async () => {
    const st = here();
    if (replying(st)) { say("Wait for the reply to finish before compacting the context."); return; } // RW-150
    try {
      const accepted = await hangar.api("/api/runtime-work/compact", address());
      st.compaction = { subtaskId: accepted.subtaskId, status: "running" };
      renderLive();
    } catch (err) { say(err.message); }
  });
  document.addEventListener("hangar:transcript-page", (event) => {
    const d = event.detail;
    if (keyOf(d.deviceId, d.localTaskId) !== currentKey) return;
    const total = Number(d.contextTotal || 0), windowSize = Number(d.contextWindow || 0);
    const tokens = (n) => (n >= 1000 ? `${Math.round(n / 100) / 10}k` : String(n));
    const used = total ? (windowSize ? `${Math.round((100 * total) / windowSize)}% of ${tokens(windowSize)}` : `${tokens(total)} tokens`) : "";
    $("compact-button").textContent = used ? `Context ${used} · Compact` : "Context · Compact";
    takeOver();
  });

  // ---- approvals ------------------------------------------------------------------------------
  function renderApprovals() {
    const st = here();
    approvalsEl.replaceChildren();
    approvalsEl.hidden = !st.approvals.size;
    for (const approval of st.approvals.values()) {
      const card = el("div", "approval-card");
      card.dataset.approvalId = approval.approvalId;
      card.append(el("strong", "", approval.title), el("pre", "approval-detail", approval.detail || ""));
      if (approval.reason) card.append(el("p", "muted", approval.reason));
      const row = el("div", "approval-actions");
      const labels = { approve: "Approve", approve_for_session: "Always for this session", deny: "Deny" };
      for (const decision of approval.decisions) {
        const button = el("button", decision === "deny" ? "danger" : decision === "approve" ? "primary" : "", labels[decision] || decision);
        button.type = "button";
        button.dataset.decision = decision;
        button.addEventListener("click", () => answer(approval, decision, card));
        row.append(button);
      }
      card.append(row);
      approvalsEl.append(card);
    }
  }
  async function answer(approval, decision, card) {
    card.querySelectorAll("button").forEach((b) => { b.disabled = true; });
    try {
      await hangar.api("/api/runtime-work/approvals/answer", { deviceId: approval.deviceId || address().deviceId, localTaskId: approval.localTaskId, approvalId: approval.approvalId, decision });
      taskState(keyOf(approval.deviceId || address().deviceId, approval.localTaskId)).approvals.delete(approval.approvalId);
      renderApprovals();
    } catch (err) { say(err.message); card.querySelectorAll("button").forEach((b) => { b.disabled = false; }); }
  }

  // ---- attachments ----------------------------------------------------------------------------
  function renderPreviews() {
    const st = here();
    previews.replaceChildren(...st.files.map((file) => {
      const chip = el("span", "attachment-chip");
      if (file.previewUrl) { const img = el("img", "thumb"); img.src = file.previewUrl; img.alt = file.name; chip.append(img); }
      chip.append(el("span", "", file.name));
      const drop = el("button", "", "×");
      drop.type = "button";
      drop.setAttribute("aria-label", "Remove " + file.name);
      drop.addEventListener("click", () => { st.files = st.files.filter((f) => f !== file); renderPreviews(); });
      chip.append(drop);
      return chip;
    }));
  }
  attachInput.addEventListener("change", async () => {
    const st = here();
    for (const file of [...attachInput.files]) {
      const body = new FormData();
      body.append("file", file, file.name);
      try {
        const res = await fetch("/api/runtime-work/attachments", { method: "POST", body, headers: { "X-CSRF-Token": hangar.csrf, Accept: "application/json" } });
        const data = await res.json().catch(() => ({}));
        if (!res.ok) throw new Error((data.error && data.error.message) || "upload failed");
        st.files.push({ ...data, previewUrl: file.type.startsWith("image/") ? URL.createObjectURL(file) : "" });
      } catch (err) { say(`${file.name}: ${err.message}`); }
    }
    attachInput.value = "";
    renderPreviews();
  });

  // ---- events ---------------------------------------------------------------------------------
  function onTurn(data) {
    const key = keyOf(data.deviceId, data.localTaskId), st = taskState(key);
    const type = data.type;
    if (type.startsWith("approval.")) {
      if (type === "approval.requested") st.approvals.set(data.approval.approvalId, { ...data.approval, deviceId: data.deviceId });
      else st.approvals.delete(data.approvalId);
      if (key === currentKey) renderApprovals();
      runtime.refreshSidebar();
      return;
    }
    if (data.subtaskId && data.subtaskId.endsWith("-context-compact")) {
      if (!st.compaction) st.compaction = { subtaskId: data.subtaskId, status: "running" };
      if (TERMINAL.has(type)) { st.compaction.status = type === "response.completed" ? "completed" : "failed"; runtime.refresh(); }
      if (key === currentKey) renderLive();
      return;
    }
    let live = st.live;
    const mine = live && (live.subtaskId === data.subtaskId || (!live.subtaskId && live.status === "running"));
    if (!mine) {
      if (TERMINAL.has(type)) { runtime.refreshSidebar(); if (key === currentKey) runtime.refresh(); return; }
      live = st.live = newLive("", []); // a turn started elsewhere (the CLI, another tab)
    }
    if (!live.subtaskId && data.subtaskId) live.subtaskId = data.subtaskId;
    if (type === "response.output_text.delta") {
      lastAssistant(live).text += data.delta;
    } else if (type === "response.output_text.done" && typeof data.text === "string") {
      // RW-137: a full text after a guidance split is trimmed by the prefix recorded then.
      const seg = lastAssistant(live);
      seg.text = data.text.slice(seg.prefix || 0);
    } else if (type === "response.tool") {
      const seg = lastAssistant(live);
      const known = seg.tools.find((t) => t.toolUseId === data.toolUseId);
      if (known) Object.assign(known, data); else seg.tools.push({ toolUseId: data.toolUseId, name: data.name, status: data.status, summary: data.summary });
    } else if (type === "guidance.accepted") { // RW-141
      const seg = live.segments.find((s) => s.type === "guidance" && s.clientGuidanceId === data.clientGuidanceId);
      if (seg) seg.confirmed = true;
      else live.segments.push({ type: "guidance", text: data.text, clientGuidanceId: data.clientGuidanceId, confirmed: true }, { type: "assistant", text: "", tools: [] });
    } else if (TERMINAL.has(type)) {
      live.status = type === "response.completed" ? "completed" : type === "response.failed" ? "failed" : "interrupted";
      live.error = data.error || "";
      log(type, data, key === currentKey ? "accepted" : "other-task");
      runtime.refreshSidebar();
      if (key === currentKey) runtime.refresh();
      setTimeout(() => flushQueue(key), 0);
      log(type, data, "settled");
    } else if (type === "response.created") {
      runtime.refreshSidebar();
    }
    if (key === currentKey) renderLive();
  }
  runtime.events.addEventListener("runtime.turn", (event) => onTurn(JSON.parse(event.data || "{}")));

  // ---- opening a task -------------------------------------------------------------------------
  async function opened(deviceId, localTaskId) {
    currentKey = keyOf(deviceId, localTaskId);
    form.hidden = false;
    say("");
    renderLive();
    renderApprovals();
    renderPreviews();
    const key = currentKey;
    try {
      const [models, activity] = await Promise.all([
        hangar.api("/api/runtime-work/models", { deviceId, localTaskId }),
        hangar.api("/api/runtime-work/activity?deviceId=" + encodeURIComponent(deviceId)),
      ]);
      if (key !== currentKey) return;
      capabilities = { runtime: models.runtime, operations: models.operations, models: models.models };
      fillPicker();
      restore(activity, deviceId, localTaskId);
    } catch (err) {
      capabilities = { runtime: "", operations: [], models: [] };
      fillPicker();
      say(err.message);
    }
    renderLive();
    renderApprovals();
  }
  // A page that reloads finds the running reply and the open requests again.
  function restore(activity, deviceId, localTaskId) {
    const st = here();
    for (const approval of activity.approvals || []) {
      if (approval.localTaskId === localTaskId) st.approvals.set(approval.approvalId, { ...approval, deviceId });
    }
    const turn = (activity.turns || []).find((t) => t.localTaskId === localTaskId && t.status === "running");
    if (turn && !st.live && turn.kind === "reply") {
      st.live = newLive("", []);
      st.live.subtaskId = turn.subtaskId;
      st.live.segments[0].text = turn.text;
    } else if (turn && turn.kind === "compaction" && !st.compaction) {
      st.compaction = { subtaskId: turn.subtaskId, status: "running" };
    }
  }
  function fillPicker() {
    picker.replaceChildren();
    const can_send = can("send");
    form.classList.toggle("unsupported", !can_send);
    input.disabled = !can_send;
    $("send-button").disabled = !can_send;
    if (!can_send) {
      picker.append(new Option("—", ""));
      say(capabilities.runtime ? `hangar cannot continue ${capabilities.runtime} tasks yet (see docs/agents.md).` : note.textContent);
      return;
    }
    picker.append(new Option("Choose a model…", ""));
    let remembered = null;
    try { remembered = JSON.parse(localStorage.getItem("hangar.model." + capabilities.runtime) || "null"); } catch (_) { remembered = null; }
    capabilities.models.forEach((model, i) => {
      const option = new Option(model.displayName, String(i));
      const chosen = remembered ? remembered.modelId === model.id && remembered.modelType === model.modelType : model.isDefault;
      if (chosen) option.selected = true;
      picker.append(option);
    });
    fillEffort();
  }
  function fillEffort() {
    const option = picker.selectedOptions[0];
    const model = option && option.value ? capabilities.models[Number(option.value)] : null;
    const efforts = model ? model.efforts : [];
    effort.hidden = !efforts.length;
    effort.replaceChildren(new Option("Effort: agent default", ""), ...efforts.map((e) => new Option("Effort: " + e, e)));
  }
  picker.addEventListener("change", fillEffort);
  document.addEventListener("hangar:task-opened", (event) => opened(event.detail.deviceId, event.detail.localTaskId));
  // A task being created (new_task.js): its first message shows at once, waiting for the
  // reply (RW-274); the reply's events then fill this projection like a send's.
  document.addEventListener("hangar:task-created", (event) => {
    const { deviceId, localTaskId, text } = event.detail;
    taskState(keyOf(deviceId, localTaskId)).live = newLive(text, []);
  });
  document.addEventListener("hangar:task-create-failed", (event) => {
    tasks.delete(keyOf(event.detail.deviceId, event.detail.localTaskId));
  });
  const start = runtime.current();
  if (start.deviceId && start.localTaskId) opened(start.deviceId, start.localTaskId);
})();
