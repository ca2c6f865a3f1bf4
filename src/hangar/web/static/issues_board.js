// The issues board: a card dropped on another column, or given another status in its menu
// (the keyboard way), is PATCHed to that status and moved there; a refusal leaves it in place.
"use strict";
(() => {
  const board = document.getElementById("board");
  if (!board) return;
  const say = (text) => { document.getElementById("board-status").textContent = text; };
  const column = (status) => board.querySelector(`.board-column[data-status="${CSS.escape(status)}"]`);
  const label = (status) => status.replace(/_/g, " ");

  function recount() {
    board.querySelectorAll(".board-column").forEach((col) => {
      col.querySelector("h2 .count").textContent = String(col.querySelectorAll(".card").length);
    });
  }

  async function move(card, status) {
    const key = card.dataset.issueKey;
    const from = card.closest(".board-column").dataset.status;
    const select = card.querySelector(".card-status");
    if (status === from) return;
    try {
      await hangar.api("/api/issues/" + encodeURIComponent(key), { status }, "PATCH");
    } catch (err) {
      select.value = from;
      say(`${key} was not moved: ${err.message}`);
      return;
    }
    select.value = status;
    column(status).querySelector(".cards").prepend(card);
    recount();
    say(`${key} moved to ${label(status)}.`);
  }

  board.addEventListener("change", (event) => {
    const select = event.target.closest(".card-status");
    if (!select) return;
    const card = select.closest(".card");
    move(card, select.value).then(() => select.focus());
  });

  let dragged = null;
  board.addEventListener("dragstart", (event) => {
    dragged = event.target.closest(".card");
    if (!dragged) return;
    event.dataTransfer.effectAllowed = "move";
    event.dataTransfer.setData("text/plain", dragged.dataset.issueKey);
    dragged.classList.add("dragging");
  });
  board.addEventListener("dragend", () => {
    if (dragged) dragged.classList.remove("dragging");
    board.querySelectorAll(".drop-target").forEach((c) => c.classList.remove("drop-target"));
    dragged = null;
  });
  board.addEventListener("dragover", (event) => {
    const col = event.target.closest(".board-column");
    if (!col || !dragged) return;
    event.preventDefault();
    board.querySelectorAll(".drop-target").forEach((c) => c !== col && c.classList.remove("drop-target"));
    col.classList.add("drop-target");
  });
  board.addEventListener("drop", (event) => {
    const col = event.target.closest(".board-column");
    if (!col || !dragged) return;
    event.preventDefault();
    col.classList.remove("drop-target");
    move(dragged, col.dataset.status);
  });

})();
