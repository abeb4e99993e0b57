"""Reading QR codes back as a phone would, for the tests that check what a code says."""
from __future__ import annotations

import cv2
import numpy as np


def read_qr(img: np.ndarray) -> str:
    """What the QR code in a grey image says ("" if none reads): OpenCV's two readers, each
    also on the image enlarged. One reader at one size misses about one code in sixteen of a
    200-pixel operator link (which codes depends on the server's port), where a phone's camera,
    reading many frames at many distances, would not."""
    for scale in (1, 2, 3):
        sized = img if scale == 1 else cv2.resize(img, None, fx=scale, fy=scale,
                                                  interpolation=cv2.INTER_CUBIC)
        for reader in (cv2.QRCodeDetector(), cv2.QRCodeDetectorAruco()):
            text, _, _ = reader.detectAndDecode(sized)
            if text:
                return text
    return ""


def read_png(png: bytes) -> str:
    """What the QR code in a PNG screenshot says."""
    return read_qr(cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_GRAYSCALE))
