/* Set-up page: new game, rules in words, house presets, camera source, pot zone. */
"use strict";
(() => {
  const { post, get, toast, h } = masta;
  const $ = (id) => document.getElementById(id);

  /* House-rule tweaks: each rule of the chosen preset as a switch or a choice; what is
     changed is written as a preset that extends it (the TOML below, which stays for files and
     for anything the switches do not cover). */
  let base = null;  // {name, switches} of the preset the switches start from
  const sameValue = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  const tomlValue = (v) => (Array.isArray(v) ? "[" + v.map((x) => JSON.stringify(String(x))).join(", ") + "]"
    : typeof v === "string" ? JSON.stringify(v) : String(v));  // JSON's string escapes are TOML's
  const ranksOf = (text) => text.split(/[\s,]+/).map((x) => x.trim().toUpperCase()).filter(Boolean);

  function control(sw, onchange) {
    const id = "sw-" + (sw.rank ? sw.rank + "-" : "") + sw.key;
    let input;
    if (sw.kind === "bool") input = h("input", { type: "checkbox", id, checked: sw.now || null, role: "switch" });
    else if (sw.kind === "choice") input = h("select", { id }, sw.choices.map((c) => h("option", { value: c }, c ? c.replace(/_/g, " ") : "(none)")));
    else if (sw.kind === "int") input = h("input", { type: "number", id, min: 0, max: 99, style: "width:4.5em" });
    else input = h("input", { type: "text", id, size: 12, placeholder: "ranks" });
    if (sw.kind === "choice" || sw.kind === "int") input.value = String(sw.now);
    if (sw.kind === "ranks") input.value = sw.now.join(" ");
    const wrap = h("label", { class: "switch", for: id, "data-key": (sw.rank ? "ranks." + sw.rank + "." : "table.") + sw.key },
      input, h("span", {}, h("b", {}, sw.label), h("span", { class: "what" }, sw.what)));
    input.addEventListener("change", () => {
      sw.now = sw.kind === "bool" ? input.checked : sw.kind === "int" ? Number(input.value) : sw.kind === "ranks" ? ranksOf(input.value) : input.value;
      wrap.classList.toggle("changed", !sameValue(sw.now, sw.value));
      onchange();
    });
    return wrap;
  }

  function drawSwitches(name, d) {
    base = { name, table: d.table.map((x) => ({ ...x, now: x.value })),
      ranks: d.ranks.map((r) => ({ ...r, fields: r.fields.map((x) => ({ ...x, rank: r.rank, now: x.value })) })) };
    const write = () => { $("house-toml").value = houseToml(); };
    $("switches").replaceChildren(
      h("details", { class: "rank-rules table-rules" }, h("summary", {}, h("b", {}, "The table"), " ",
        h("span", { class: "small muted" }, "dealing, who starts, picking up, Turbo, burning")),
        h("div", { class: "switches" }, base.table.map((sw) => control(sw, write)))),
      ...base.ranks.map((r) => h("details", { class: "rank-rules", "data-rank": r.rank },
        h("summary", {}, h("b", {}, r.rank === "JK" ? "Joker" : r.rank), " ", h("span", { class: "small muted" }, r.words.join("; "))),
        h("div", { class: "switches" }, r.fields.map((sw) => control(sw, write))))));
    write();
  }

  /* The TOML of a preset extending the chosen one with what the switches changed. A changed
     rank is written whole (a [ranks.X] replaces the base's), with its source sentence kept. */
  function houseToml() {
    const name = ($("house-name").value || "our-house").trim();
    const lines = ["extends = " + JSON.stringify(base.name), "name = " + JSON.stringify(name), 'title = "Our house rules"', ""];
    const table = base.table.filter((sw) => !sameValue(sw.now, sw.value));
    lines.push("[table]", ...table.map((sw) => sw.key + " = " + tomlValue(sw.now)));
    if (!table.length) lines.push("# switch a rule above, or write it here: voluntary_pickup = true");
    for (const r of base.ranks) {
      if (r.fields.every((sw) => sameValue(sw.now, sw.value))) continue;
      lines.push("", "[ranks." + r.rank + "]", ...r.fields.filter((sw) => !sameValue(sw.now, sw.default))
        .map((sw) => sw.key + " = " + tomlValue(sw.now)));
      if (r.cite) lines.push("cite = " + JSON.stringify(r.cite));
      if (r.cite && r.reading) lines.push("reading = " + JSON.stringify(r.reading));
    }
    return lines.join("\n") + "\n";
  }

  async function showRules() {
    const name = $("preset").value;
    const r = await fetch("/setup/rules/" + encodeURIComponent(name) + ".json");
    const d = await r.json();
    $("words").textContent = r.ok ? d.words : d.error;
    if (r.ok) drawSwitches(name, d.switches);
  }
  $("preset").addEventListener("change", showRules);
  $("house-name").addEventListener("change", () => { if (base) $("house-toml").value = houseToml(); });
  showRules();

  $("game-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const r = await post("/setup/api/game", {
      players: $("players").value, dealer: $("dealer").value || null, preset: $("preset").value,
      decks: Number($("decks").value || 1),
    });
    if (r.ok) { toast("Game " + r.body.event.game + " set up"); setTimeout(() => { location.href = "/live/"; }, 600); }
  });
  $("house-save").addEventListener("click", async () => {
    const r = await post("/setup/api/preset", { name: $("house-name").value, toml: $("house-toml").value });
    if (r.ok) { toast("Saved preset " + r.body.name); setTimeout(() => location.reload(), 600); }
  });
  $("source-save").addEventListener("click", async () => {
    const r = await post("/setup/api/camera", { source: $("source").value });
    if (r.ok) toast(r.body.message);
  });
  $("letters-save").addEventListener("click", async () => {
    const r = await post("/setup/api/deck-letters", { letters: $("deck-letters").value });
    if (r.ok) toast(r.body.message);
  });
  $("evening-new").addEventListener("click", async () => {
    if (!confirm("Start a new evening? The current one is kept in Export.")) return;
    const r = await post("/setup/api/evening", { name: $("evening-name").value });
    if (r.ok) location.reload();
  });

  // The pot zone, and optionally each player's side: drag a rectangle on the snapshot; saved as
  // fractions of the frame.
  const img = $("snap"), cv = $("zone"), ctx = cv.getContext("2d"), mode = $("zone-mode");
  let zone = JSON.parse(cv.dataset.zone || "null"), seats = JSON.parse(cv.dataset.seats || "{}"), drag = null;
  // the sides masta proposes from where the first plays' arms came in: dashed, to accept or move
  let proposal = JSON.parse(cv.dataset.proposal || "{}");
  const box = (z, color, label) => {
    ctx.strokeStyle = color; ctx.lineWidth = 3;
    ctx.strokeRect(z[0] * cv.width, z[1] * cv.height, (z[2] - z[0]) * cv.width, (z[3] - z[1]) * cv.height);
    if (label) { ctx.fillStyle = color; ctx.font = "bold 14px sans-serif"; ctx.fillText(label, z[0] * cv.width + 5, z[1] * cv.height + 17); }
  };
  function draw() {
    ctx.clearRect(0, 0, cv.width, cv.height);
    ctx.setLineDash([8, 6]);
    for (const [name, z] of Object.entries(proposal.seats || {})) if (!seats[name]) box(z, "#c9f29b", name + "?");
    ctx.setLineDash([]);
    for (const [name, z] of Object.entries(seats)) box(z, "#7fd8ff", name);
    if (zone) box(zone, "#ffd34d", "pot");
  }
  const drawing = () => mode.value;  // "" the pot, else a player's name
  mode.addEventListener("change", () => { $("zone-save").textContent = drawing() ? "Save " + drawing() + "'s side" : "Save pot zone"; });
  img.addEventListener("load", () => {
    img.hidden = false; $("snap-status").hidden = true;
    cv.width = img.clientWidth; cv.height = img.clientHeight; $("zone-save").disabled = false; draw();
  });
  img.src = "/live/frame.jpg?" + Date.now();
  const frac = (e) => { const r = cv.getBoundingClientRect(); return [Math.min(1, Math.max(0, (e.clientX - r.left) / r.width)), Math.min(1, Math.max(0, (e.clientY - r.top) / r.height))]; };
  cv.addEventListener("pointerdown", (e) => { drag = frac(e); cv.setPointerCapture(e.pointerId); });
  cv.addEventListener("pointermove", (e) => {
    if (!drag) return; const p = frac(e);
    const z = [Math.min(drag[0], p[0]), Math.min(drag[1], p[1]), Math.max(drag[0], p[0]), Math.max(drag[1], p[1])];
    if (drawing()) seats[drawing()] = z; else zone = z;
    draw();
  });
  cv.addEventListener("pointerup", () => { drag = null; });
  $("zone-save").addEventListener("click", async () => {
    if (drawing()) {
      const r = await post("/setup/api/seat-zones", { seats });
      if (r.ok) { seats = r.body.seats; $("seats-clear").hidden = false; toast(drawing() + "'s side saved"); draw(); }
      return;
    }
    const r = await post("/setup/api/pot-zone", { zone });
    if (r.ok) toast("Pot zone saved");
  });
  $("seats-accept").addEventListener("click", async () => {
    const r = await post("/setup/api/seat-zones", { seats: Object.assign({}, proposal.seats || {}, seats) });
    if (r.ok) { seats = r.body.seats; $("seats-clear").hidden = false; toast("The proposed sides are saved"); draw(); }
  });
  get("/setup/api/seat-proposal").then((p) => {
    if (!p || !p.seats) return;
    proposal = p; $("seats-accept").hidden = false;
    $("proposal-status").hidden = false;
    $("proposal-status").textContent = "Sides proposed from the arms of the first " + p.plays + " play(s).";
    draw();
  }).catch(() => {});
  $("seats-clear").addEventListener("click", async () => {
    const r = await post("/setup/api/seat-zones", { seats: {} });
    if (r.ok) { seats = {}; $("seats-clear").hidden = true; toast("The sides are cleared"); draw(); }
  });
})();
