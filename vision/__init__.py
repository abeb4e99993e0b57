"""Camera, card detector and pot watcher: from frames to pot events."""
