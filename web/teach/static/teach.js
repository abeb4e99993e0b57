/* Teach the deck: the card to show next, the cards learnt, the camera's picture. */
"use strict";
(() => {
  const { post, get, h, card, listen, toast } = masta;
  const $ = (id) => document.getElementById(id);
  let state = JSON.parse($("initial-teach").textContent);

  function draw() {
    const busy = state.status !== "idle";
    $("start").hidden = busy; $("suits").disabled = busy;
    $("done").hidden = state.status !== "teaching"; $("cancel").hidden = !busy;
    const learnt = new Set((state.taught || []).map((d) => d.card));
    $("next-title").textContent = state.status === "teaching" ? "Show this card" : "Next card";
    $("next").replaceChildren(state.next ? card(state.next) : h("span", { class: "muted" },
      state.status === "finishing" ? "learning…" : state.order.length && !busy ? "done" : "press Start"));
    $("order").replaceChildren(...(state.order || []).map((c) =>
      h("span", { class: "teach-card" + (learnt.has(c) ? " learnt" : "") + (c === state.next ? " now" : ""),
                  "data-card": c, title: learnt.has(c) ? c + ": learnt" : c }, card(c, true))));
    $("message").textContent = state.order.length ? learnt.size + " of " + state.order.length + " cards learnt. " + (state.message || "") : (state.message || "");
    $("problems").replaceChildren(...(state.problems || []).map((p) => h("li", {}, p)));
    const d = state.deck;
    $("deck").textContent = d ? "Taught here: " + d.cards.length + " of " + d.of + " cards, " +
      new Date(d.t * 1000).toLocaleString() + (state.reads_with ? ". The camera reads with it." : ".")
      : state.reads_with ? "The camera reads with the deck " + state.reads_with + " (given when the server started)."
      : "None: the camera reads with its model alone.";
    $("forget").hidden = !d || busy;
    const m = state.misreads || [];
    $("misreads").hidden = !m.length;
    $("misreads").textContent = m.length ? "This evening a person corrected the camera's " +
      m.slice(0, 4).map((x) => x.was + " read as " + x.read + (x.times > 1 ? " (" + x.times + " times)" : "")).join(", ") + "." : "";
  }

  const act = (what) => async () => {
    const body = what === "start" ? { suits: $("suits").value } : {};
    const r = await post("/teach/api/" + what, body);
    if (r.ok) { state = r.body; draw(); }
  };
  $("start").addEventListener("click", act("start"));
  $("done").addEventListener("click", act("done"));
  $("cancel").addEventListener("click", act("cancel"));
  $("forget").addEventListener("click", async () => {
    if (!confirm("Forget the taught deck? The camera then reads with its model alone.")) return;
    await act("forget")();
    toast("The taught deck is forgotten");
  });

  listen({
    teach: (s) => { state = s; draw(); },
    open: async () => { if ($("no-camera")) return; state = await get("/teach/api/state"); draw(); },
  });

  // the camera's picture, refreshed while this page is open
  const img = $("view");
  img.addEventListener("load", () => { img.hidden = false; $("view-status").hidden = true; });
  const refresh = () => { img.src = "/live/frame.jpg?" + Date.now(); };
  refresh(); setInterval(refresh, 700);
  draw();
})();
