"""The pot watcher's parts, in the order a decision runs through them (`vision.pot_watcher.PotWatcher`
ties them together; docs/architecture.md, "The pot watcher", tells the design):

* `pixels`: is the scene still, does an arm cross the zone's edge, what changed since the last
  settled frame (cheap grey-image measures, every frame);
* `settle`: several reads of a still scene merged into one `Observation` per physical card;
* `memory`: what this pot has held since the last clear, and which of a frame's cards are new;
* `plays`: the new cards told apart into a play (one rank, the best-scored hypothesis) and strays;
* `asking`: what makes a play "please check", and what masta offers to fix it;
* `zone`: where the pot is (auto mode follows where plays land);
* `evidence`: the frames before and after each decision, drawn.

`config` holds every threshold, `observation` and `events` what goes in and out, `geometry` the
box tests they share.
"""
