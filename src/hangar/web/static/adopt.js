// "Adopt into issue" in the task pane: links the open task to an issue as a local run
// (POST /api/runtime-work/adopt). An empty key makes a new issue of the session's first request.
"use strict";
(() => {
  const button = document.getElementById("adopt-button");
  if (!button) return;
  button.addEventListener("click", async () => {
    const params = new URLSearchParams(location.search);
    const deviceId = params.get("deviceId");
    const localTaskId = params.get("localTaskId");
    if (!deviceId || !localTaskId) return;
    const label = document.querySelector('label[for="confirm-input"]');
    const before = label ? label.textContent : "";
    if (label) label.textContent = "Issue key";
    const key = await hangar.ask(
      "Adopt this session into which issue? Leave empty to create one from its first request.",
      { input: "", okLabel: "Adopt" },
    );
    if (label) label.textContent = before;
    if (key === null) return;
    const body = { deviceId, localTaskId };
    if (key) body.issueKey = key;
    try {
      hangar.status("Adopting…");
      const done = await hangar.api("/api/runtime-work/adopt", body);
      const line = document.getElementById("status-line");
      line.textContent = (done.created ? "Adopted into " : "Already adopted into ") + done.issueKey
        + ` (${done.imported} messages imported). `;
      const link = document.createElement("a");
      link.href = "/issues/" + encodeURIComponent(done.issueKey);
      link.id = "adopted-issue-link";
      link.textContent = "Open " + done.issueKey;
      line.append(link);
    } catch (error) {
      hangar.status("Not adopted: " + error.message);
    }
  });
})();
