"""Camera sources as people see them: a stream's password never reaches a spectator."""
from __future__ import annotations

import re
from typing import Any

#: a URL's user:password@ (the password is masked), and query values that are secrets
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://[^/\s:@]*:)([^@\s/]+)@")
_SECRET_QUERY = re.compile(r"(?i)([?&;](?:pass(?:word)?|pwd|token|key|secret|auth|sig(?:nature)?)=)([^&;#\s]+)")


def mask_source(text: Any) -> Any:
    """`text` with every camera password masked (rtsp://admin:***@host/stream, ?token=***):
    what spectators, pages, pushes and the console see of a source. The operator's set-up
    form alone shows the source as typed."""
    if not isinstance(text, str):
        return text
    return _SECRET_QUERY.sub(r"\1***", _USERINFO.sub(r"\1***@", text))


#: the longest camera source the set-up page takes (a stream URL with its token fits)
MAX_SOURCE = 2000
