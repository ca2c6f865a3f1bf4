// "Copy to new task", a message action (RW-297..305): the completed turn's lastTurnId goes to
// the chosen target — this device, another device's directory bound to the task's project,
// or an online device not bound yet, whose directory (one it reports, or a new folder) is
// first bound to the project as a workspace or a worktree. The hub offers only targets
// within the task's project. The copy opens at /runtime-tasks?deviceId=…&localTaskId=….
// The source task is left as it is, also mid-turn.
"use strict";
(() => {
  const runtime = window.hangarRuntime, messages = document.getElementById("messages");
  const dialog = document.getElementById("copy-task-dialog");
  if (!runtime || !messages || !dialog) return;
  const $ = (id) => document.getElementById(id);
  const NEW_FOLDER = "__new__";
  const newId = () => (crypto.randomUUID ? crypto.randomUUID().replace(/-/g, "")
    : Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join(""));
  let pending = null; // {source, turnId, button, targets}

  async function copyTo(source, turnId, target) {
    const body = {
      deviceId: source.deviceId, localTaskId: source.localTaskId,
      lastTurnId: turnId, newLocalTaskId: newId(),
    };
    if (target.deviceId !== source.deviceId) {
      body.targetDeviceId = target.deviceId;
      body.targetWorkspacePath = target.workspacePath;
    }
    const copied = await hangar.api("/api/runtime-work/copy", body);
    runtime.open(copied.deviceId, copied.localTaskId);
    runtime.refreshSidebar();
  }

  function describe(target) {
    if (target.kind === "this_device") return "This device: " + target.display;
    if (target.kind === "device_workspace") return `${target.display}: ${target.workspacePath} (${target.label})`;
    return `${target.display}: not in this project yet (choose a directory)`;
  }

  function render(found) {
    $("copy-task-project").textContent = found.projectName
      ? "Project: " + found.projectName : "A conversation: it is copied on its own device.";
    const box = $("copy-task-targets");
    box.querySelectorAll("label").forEach((l) => l.remove());
    found.targets.forEach((target, i) => {
      const label = document.createElement("label"), input = document.createElement("input");
      input.type = "radio"; input.name = "copy-task-target"; input.value = String(i); input.checked = i === 0;
      label.append(input, " " + describe(target));
      box.append(label);
    });
    $("copy-task-prepare").hidden = true;
    $("copy-task-error").hidden = true;
  }

  const chosen = () => {
    const input = dialog.querySelector("input[name=copy-task-target]:checked");
    return input ? pending.targets[Number(input.value)] : null;
  };

  async function showDirectories(target) {
    const select = $("copy-task-directory");
    select.replaceChildren(new Option("Loading…", ""));
    const listed = await hangar.api("/api/runtime-work/projects");
    const device = listed.devices.find((d) => d.deviceId === target.deviceId);
    select.replaceChildren(...((device && device.projects) || []).map((p) => new Option(p.workspacePath, p.workspacePath)));
    select.append(new Option("New folder…", NEW_FOLDER));
    $("copy-task-name-row").hidden = select.value !== NEW_FOLDER;
  }

  $("copy-task-targets").addEventListener("change", () => {
    const target = chosen(), unbound = !!target && target.kind === "unbound_device";
    $("copy-task-prepare").hidden = !unbound;
    if (unbound) showDirectories(target).catch((err) => fail(err));
  });
  $("copy-task-directory").addEventListener("change", () => {
    $("copy-task-name-row").hidden = $("copy-task-directory").value !== NEW_FOLDER;
  });
  $("copy-task-cancel").addEventListener("click", () => { dialog.close(); release(); });
  dialog.addEventListener("cancel", () => release());

  function release() { if (pending) pending.button.disabled = false; pending = null; }
  function fail(err) { const line = $("copy-task-error"); line.textContent = "Copy failed: " + err.message; line.hidden = false; }

  async function prepare(target) {
    const directory = $("copy-task-directory").value;
    const body = {
      deviceId: pending.source.deviceId, localTaskId: pending.source.localTaskId,
      targetDeviceId: target.deviceId,
      label: dialog.querySelector("input[name=copy-task-label]:checked").value,
    };
    if (directory === NEW_FOLDER) body.newProjectName = $("copy-task-name").value.trim();
    else body.workspacePath = directory;
    const bound = await hangar.api("/api/runtime-work/device-workspaces/prepare", body);
    return { deviceId: bound.deviceId, workspacePath: bound.workspacePath };
  }

  $("copy-task-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const target = chosen();
    if (!pending || !target) return;
    const go = $("copy-task-go");
    go.disabled = true;
    try {
      const where = target.kind === "unbound_device" ? await prepare(target) : target;
      await copyTo(pending.source, pending.turnId, where);
      pending = null;
      dialog.close();
    } catch (err) {
      fail(err);
    } finally {
      go.disabled = false;
    }
  });

  messages.addEventListener("click", async (event) => {
    const button = event.target.closest("button.copy-task");
    if (!button) return;
    const current = runtime.current(), source = { deviceId: current.deviceId, localTaskId: current.localTaskId };
    button.disabled = true;
    try {
      const found = await hangar.api("/api/runtime-work/copy-targets", source);
      if (found.targets.length === 1) { // nothing to choose: a copy beside the task
        await copyTo(source, button.dataset.turnId, found.targets[0]);
        return;
      }
      pending = { source, turnId: button.dataset.turnId, button, targets: found.targets };
      render(found);
      dialog.showModal();
    } catch (err) {
      button.disabled = false;
      button.textContent = "Copy failed: " + err.message;
    }
  });
})();
