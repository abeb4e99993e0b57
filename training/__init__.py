"""Training: everything that makes or measures the models, apart from what runs at the table.

`train` (`masta train`: data, detector, classifier, export), `train_mix` (the leased-GPU
classifier run), `quantize` (the int8 copies in `models/`), `evaluate` (`masta eval`: a
detector against labelled photos) and `deck_tune` (fine-tuning a taught deck's own rank
reader). Training imports the runtime (`vision`, `referee`, `datasets`); the runtime never
imports training: the verbs that train import it inside the verb, and a server or a verb that
tunes a taught deck's reader passes `training.deck_tune.tune` to `vision.deck_memory.learn_deck`
(tests/test_imports.py checks both, and that no module imports itself in a circle).
"""
