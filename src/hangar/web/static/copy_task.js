// "Copy to new task", a message action (RW-297..300): the completed turn's lastTurnId goes to
// the task's device, which forks the agent's session through that turn; the copy opens at
// /runtime-tasks?deviceId=…&localTaskId=…. The source task is left as it is, also mid-turn.
"use strict";
(() => {
  const runtime = window.hangarRuntime, messages = document.getElementById("messages");
  if (!runtime || !messages) return;
  const newId = () => (crypto.randomUUID ? crypto.randomUUID().replace(/-/g, "")
    : Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join(""));

  messages.addEventListener("click", async (event) => {
    const button = event.target.closest("button.copy-task");
    if (!button) return;
    const current = runtime.current();
    button.disabled = true;
    try {
      const copied = await hangar.api("/api/runtime-work/copy", {
        deviceId: current.deviceId, localTaskId: current.localTaskId,
        lastTurnId: button.dataset.turnId, newLocalTaskId: newId(),
      });
      runtime.open(copied.deviceId, copied.localTaskId);
      runtime.refreshSidebar();
    } catch (err) {
      button.disabled = false;
      button.textContent = "Copy failed: " + err.message;
    }
  });
})();
