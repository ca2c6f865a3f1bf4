// The "New task" flow (RW-272..276): project, mode, branch, agent, model and first message.
//
// Projects come from what each online device reports (GET /api/runtime-work/projects), never a
// central project id; "No project" creates a plain conversation; "New blank project…" makes a
// new folder in ~/Documents on the device first (an existing name is refused). The page generates the new
// task's localTaskId, shows the first message with a waiting state at once (the composer's live
// projection, through `hangar:task-created`), asks the device to create the task, and opens
// /runtime-tasks?deviceId=…&localTaskId=… — the reply streams in there.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const dialog = $("new-task-dialog"), button = $("new-task-button");
  const runtime = window.hangarRuntime;
  if (!dialog || !button || !runtime) return;
  const projectEl = $("new-task-project"), branchEl = $("new-task-branch"), agentEl = $("new-task-agent");
  const modelEl = $("new-task-model"), textEl = $("new-task-text"), errorEl = $("new-task-error");
  let devices = [];
  let choices = []; // option index -> {device, project|null}

  const newId = () => (crypto.randomUUID ? crypto.randomUUID().replace(/-/g, "")
    : Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join(""));
  const option = (value, label) => { const o = document.createElement("option"); o.value = value; o.textContent = label; return o; };
  const mode = () => dialog.querySelector('input[name="new-task-mode"]:checked').value;
  const chosen = () => choices[Number(projectEl.value)] || null;
  function fail(message) { errorEl.textContent = message || ""; errorEl.hidden = !message; }

  async function load() {
    fail("");
    projectEl.replaceChildren(option("", "Loading…"));
    try {
      devices = (await hangar.api("/api/runtime-work/projects")).devices || [];
    } catch (err) { fail(err.message); return; }
    choices = [];
    projectEl.replaceChildren();
    const label = (device, text) => (devices.length > 1 ? `${text} · ${device.name}` : text);
    for (const device of devices) {
      for (const project of device.projects) {
        choices.push({ device, project });
        const o = option(String(choices.length - 1), label(device, project.name));
        o.title = project.workspacePath;
        projectEl.append(o);
      }
    }
    for (const device of devices) {
      choices.push({ device, project: null });
      projectEl.append(option(String(choices.length - 1), label(device, "No project (a conversation)")));
      choices.push({ device, project: null, blank: true });
      projectEl.append(option(String(choices.length - 1), label(device, "New blank project…")));
    }
    if (!choices.length) { fail("No device is online."); return; }
    projectChanged();
  }

  function projectChanged() {
    const choice = chosen();
    const project = choice && choice.project;
    $("new-task-name-row").hidden = !(choice && choice.blank);
    const worktree = dialog.querySelector('input[value="git_worktree"]');
    worktree.disabled = !(project && project.git && project.branches.length);
    if (worktree.disabled) dialog.querySelector('input[value="current_workspace"]').checked = true;
    $("new-task-modes").disabled = !project;
    if (choice && choice.blank) dialog.querySelector('input[value="current_workspace"]').checked = true;
    branchEl.replaceChildren(...(project ? project.branches : []).map((b) => option(b, b === project.currentBranch ? `${b} (current)` : b)));
    const agents = choice ? choice.device.agents : [];
    const before = agentEl.value;
    agentEl.replaceChildren(...agents.map((a) => option(a, a)));
    if (agents.includes(before)) agentEl.value = before;
    modeChanged();
    loadModels();
  }

  function modeChanged() { $("new-task-branch-row").hidden = mode() !== "git_worktree"; }

  async function loadModels() {
    const choice = chosen();
    modelEl.replaceChildren(option("", agentEl.value ? "Loading…" : "No agent can create tasks here"));
    if (!choice || !agentEl.value) return;
    const runtimeName = agentEl.value;
    try {
      const found = await hangar.api("/api/runtime-work/agent-models", { deviceId: choice.device.deviceId, runtime: runtimeName });
      if (agentEl.value !== runtimeName) return;
      modelEl.replaceChildren(option("", "Choose a model"), ...found.models.map((m) => {
        const o = option(m.id, m.displayName || m.id);
        o.dataset.modelType = m.modelType || "";
        return o;
      }));
    } catch (err) { modelEl.replaceChildren(option("", "No models")); fail(err.message); }
  }

  async function create(event) {
    event.preventDefault();
    fail("");
    const choice = chosen(), text = textEl.value;
    if (!choice || !agentEl.value || !modelEl.value || !text.trim()) { fail("Choose a project, an agent and a model, and write the first message."); return; }
    const localTaskId = newId(), deviceId = choice.device.deviceId;
    const selected = modelEl.selectedOptions[0];
    let workspacePath = choice.project ? choice.project.workspacePath : null;
    if (choice.blank) {
      // RW-292/293: a new folder; an existing name is refused by the device, never adopted.
      const name = $("new-task-name").value.trim();
      if (!name) { fail("Name the new project."); return; }
      try {
        workspacePath = (await hangar.api("/api/runtime-work/projects/create", { deviceId, name })).workspacePath;
      } catch (err) { fail(err.code === "conflict" ? `${err.message} Rename it.` : err.message); return; }
      choice.project = { workspacePath, name, git: false, branches: [], currentBranch: null };
      choice.blank = false;
    }
    const body = {
      deviceId, localTaskId, runtime: agentEl.value, text,
      model: { modelId: modelEl.value, modelType: selected.dataset.modelType || null },
      mode: workspacePath ? mode() : "conversation",
    };
    if (workspacePath) body.workspacePath = workspacePath;
    if (body.mode === "git_worktree" && branchEl.value) body.branch = branchEl.value;
    $("new-task-create").disabled = true;
    document.dispatchEvent(new CustomEvent("hangar:task-created", { detail: { deviceId, localTaskId, text } }));
    try {
      const made = await hangar.api("/api/runtime-work/create", body);
      dialog.close();
      textEl.value = "";
      // RW-275: the device's answer names the task's address.
      runtime.open(made.deviceId || deviceId, made.localTaskId || localTaskId);
      runtime.refreshSidebar();
    } catch (err) {
      document.dispatchEvent(new CustomEvent("hangar:task-create-failed", { detail: { deviceId, localTaskId } }));
      fail(err.message);
    } finally {
      $("new-task-create").disabled = false;
    }
  }

  button.addEventListener("click", () => { dialog.showModal(); load(); });
  $("new-task-cancel").addEventListener("click", () => dialog.close());
  projectEl.addEventListener("change", projectChanged);
  agentEl.addEventListener("change", loadModels);
  dialog.querySelectorAll('input[name="new-task-mode"]').forEach((r) => r.addEventListener("change", modeChanged));
  $("new-task-form").addEventListener("submit", create);
})();
