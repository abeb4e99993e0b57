/* Live page: draws the table snapshot and the latest ruling; every update arrives by SSE. */
"use strict";
(() => {
  const { h, card, banner, listen, initial } = masta;
  let state = initial("init");
  let lastSeq = null;

  function playersOf(t) {
    let ps = t.players || [];
    if (!Array.isArray(ps)) ps = Object.entries(ps).map(([name, p]) => Object.assign({ name }, p));
    return ps.map((p) => (typeof p === "string" ? { name: p } : p));
  }

  function fact(label, value) {
    return h("div", { class: "fact" }, h("b", {}, value === undefined || value === null ? "–" : String(value)), h("span", {}, label));
  }

  function direction(d) {
    if (d === 1 || d === "clockwise" || d === "cw") return "↻ clockwise";
    if (d === -1 || d === "anticlockwise" || d === "counterclockwise" || d === "ccw") return "↺ anticlockwise";
    return d;
  }

  function render(s, fresh) {
    const t = s.table || {};
    const latest = s.latest;
    banner(document.getElementById("banner"), latest, fresh && latest && latest.seq !== lastSeq);
    lastSeq = latest ? latest.seq : null;
    const pot = document.getElementById("pot");
    const cards = t.pot || [];
    pot.replaceChildren(...(cards.length ? cards.map((c) => card(c)) : [h("span", { class: "muted" }, "empty")]));
    document.getElementById("facts").replaceChildren(
      fact("turn", t.turn ? t.turn + (t.turn_assumed ? " (assumed)" : "") : t.turn),
      fact("next play", t.next || t.next_play),
      fact("direction", direction(t.direction)),
      fact("stock", t.stock),
      fact("burns", t.burns && typeof t.burns === "object" ? t.burns.total : t.burns),
      fact("pot", cards.length),
    );
    document.getElementById("game").textContent = s.game ? "game " + s.game + (s.preset ? " · " + s.preset : "") : "no game set up";
    const rows = playersOf(t);
    const names = rows.length ? rows : (s.players || []).map((n) => ({ name: n }));
    document.getElementById("players").replaceChildren(...names.map((p) => h("tr", {},
      h("td", { class: p.name === t.turn ? "turn" : "" }, (p.name === t.turn ? "▶ " : "") + p.name,
        p.title ? h("span", { class: "tag" }, " " + p.title) : null),
      h("td", {}, p.out ? "out" + (p.place ? " (" + p.place + ")" : "") : (p.phase === undefined ? "–" : String(p.phase))),
      h("td", {}, p.hand ?? "–"), h("td", {}, p.face_up ?? "–"), h("td", {}, p.face_down ?? "–"))));
    const names2 = names.map((p) => p.name);
    // one question at a time: the referee's (what it assumed), else the first of its other
    // prompts (counts that do not add up); the rest wait on the rulings page, counted
    const others = (t.prompts || []).slice(t.question ? 0 : 1);
    const prompts = [].concat(t.question ? [] : (t.prompts || []).slice(0, 1),
      others.length ? [{ text: others.length + " more to check on the rulings page" }] : [],
      (t.suspicions || []).slice(-3).map((x) => ({ text: "Suspicion: " + (x.text || x.suspicion) })));
    document.getElementById("prompts").replaceChildren(...[over(t, s.summary), masta.questionBox(t, false)]
      .concat(prompts.map((p) => masta.promptBox(p, names2))).filter(Boolean));
  }

  /* The game's end, said at the top: who got which title, and what to do next. Plays the
     camera saw after it are held unruled: play going on means a misread ended the game. */
  function over(t, summary) {
    if (!t.over) return null;
    const titles = t.titles || {};
    const kids = [h("b", {}, "Game " + t.game + " is over: "),
      (t.finishing_order || []).map((n) => n + (titles[n] ? " " + titles[n] : "")).join(", ") + ". ",
      h("a", { href: "/setup/" }, "Set up the next game"), "."];
    if (t.titles_assumed) kids.push(h("div", { class: "small" }, h("span", { class: "tag assumed" }, "assumed"),
      " These titles rest on " + t.titles_assumed + " assumption(s) nobody confirmed."));
    if (summary) kids.push(h("div", { class: "small muted summary" }, summary.text));
    const held = t.held || [];
    if (held.length) {
      kids.push(h("div", { class: "held" }, "The camera has seen " + held.length + " play(s) since (#" + held.join(", #") +
        "), kept and not ruled. Still this game? Then a misread ended it at #" + t.ended_at + " or before: fix it on ",
        h("a", { href: "/rulings/#e" + t.ended_at }, "the rulings page"), " and they are ruled where they happened. A new game? Set it up."));
    }
    return h("div", { class: "notice game-over" }, kids);
  }

  const cam = document.getElementById("camera");
  const camStatus = document.getElementById("camera-status");
  cam.onerror = () => {  // the moving picture refused (server full) or cut: show a still every second
    if (cam.dataset.still) return;
    cam.dataset.still = "1";
    setInterval(() => { cam.src = "/live/frame.jpg?t=" + Date.now(); }, 1000);
  };
  function tryCamera() {
    fetch("/live/frame.jpg", { method: "HEAD" }).then((r) => {
      if (r.ok) { cam.src = cam.dataset.src; cam.hidden = false; camStatus.hidden = true; }
      else setTimeout(tryCamera, 5000);
    }).catch(() => setTimeout(tryCamera, 5000));
  }
  tryCamera();

  render(state, false);
  listen({
    update: (msg) => { state = msg.view; render(state, true); },
    camera: (msg) => { camStatus.textContent = msg.status; camStatus.hidden = false; },
    open: () => masta.get("/live/state.json").then((s) => { state = s; render(s, false); }),
  });
})();
