/* Manual entry: pick cards of one rank, post them as a play; the referee's ruling comes back by SSE. */
"use strict";
(() => {
  const { card, banner, listen, initial, post } = masta;
  let state = initial("init");
  const chosen = new Set();
  const sel = document.getElementById("selected");
  const playBtn = document.getElementById("play");
  const rankOf = (c) => (c === "JK" ? "JK" : c.slice(0, -1));

  function showSel() {
    sel.replaceChildren(...(chosen.size ? [...chosen].map((c) => card(c, true)) : ["nothing"]));
    playBtn.disabled = chosen.size === 0;
    document.querySelectorAll(".pick").forEach((b) => b.classList.toggle("on", chosen.has(b.dataset.card)));
  }
  document.querySelectorAll(".pick").forEach((b) => b.addEventListener("click", () => {
    const c = b.dataset.card;
    if (chosen.has(c)) chosen.delete(c);
    else {
      // one rank per play: tapping another rank starts a new selection
      if ([...chosen].some((x) => rankOf(x) !== rankOf(c))) chosen.clear();
      chosen.add(c);
    }
    showSel();
  }));
  document.getElementById("clear-sel").addEventListener("click", () => { chosen.clear(); showSel(); });

  async function send(ev, join) {
    const r = await post("/manual/api/events", ev, { join });  // join: one Undo takes back the play and its player
    return r.ok;
  }
  playBtn.addEventListener("click", async () => {
    const cards = [...chosen];
    const by = document.getElementById("by").value;
    const ok = await send({ type: "cards_played", cards });
    if (ok && by) await send({ type: "played_by", player: by }, true);
    if (ok) { chosen.clear(); showSel(); }
  });
  document.getElementById("pot-cleared").addEventListener("click", () => send({ type: "pot_cleared" }));
  document.querySelectorAll("[data-act]").forEach((b) => b.addEventListener("click",
    () => send({ type: b.dataset.act, player: b.dataset.player })));

  function render(s, fresh) {
    banner(document.getElementById("banner"), s.latest, fresh, s.last);
    const pot = (s.table && s.table.pot) || [];
    document.getElementById("pot").replaceChildren(...(pot.length ? pot.map((c) => card(c)) : ["empty"]));
    document.getElementById("prompts").replaceChildren(...((s.table && s.table.prompts) || []).map((p) => masta.promptBox(p, s.players || [])));
  }
  render(state, false);
  showSel();
  listen({ update: (m) => { state = m.view; render(state, true); },
    // (re)connected: what was pushed while the stream was down
    open: () => masta.get("/live/state.json").then((s) => { if (masta.fresher(s, state)) { state = s; render(s, false); } }) });
})();
