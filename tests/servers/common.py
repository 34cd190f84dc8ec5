"""What the two test servers share: the scripted model's decisions, the request log and the
static files, and the start on a free port.

Each server (pydantic_app.py, langgraph_app.py) serves, on one origin:
  POST /api/agent        its AG-UI endpoint (the real adapter: pydantic-ai AGUIAdapter or ag-ui-langgraph)
  GET  /test/requests    every POST /api/agent so far: {"requests": [{"body": <JSON>, "response": <SSE text>}]}
  /pkg/, /tools/, /      pkg/, tests/servers/tools/, tests/e2e/pages/ (runtime.html exposes ChatRuntime)
and prints `listening on http://127.0.0.1:PORT` once the port accepts connections.
"""

import json
import re
import socket
import sys
import uuid
from pathlib import Path

import uvicorn
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

ROOT = Path(__file__).resolve().parents[2]
AGENT_PATH = "/api/agent"

# ---- the scripted model ---------------------------------------------------------------------

# The arguments each tool is called with (the scripted model's choice).
ARGS = {
    "get_time": {"zone": "UTC"},
    "get_weather": {"city": "Paris"},
    "fails": {"reason": "boom"},
    "slow": {"label": "stop me"},
    "note": {"text": "hello"},
    "delete_notes": {},
}


def decide(user_text, offered):
    """What the model does for the user's message `user_text` when the tools `offered` (names) are
    offered: ("calls", [(name, args)]) or ("text", str).

    "call a and b" calls the named tools (in parallel when there are several); a tool that is not
    offered is not called and the answer says so plainly.
    """
    match = re.match(r"^call (.+)$", user_text.strip())
    if not match:
        return ("text", f"You said: {user_text}")
    wanted = [name.strip() for name in match.group(1).split(" and ")]
    missing = [name for name in wanted if name not in offered]
    if missing:
        return ("text", "I cannot call " + ", ".join(missing) + ": not offered.")
    return ("calls", [(name, ARGS.get(name, {})) for name in wanted])


def answer_results(results):
    """The model's answer once the tools answered: `results` is [(toolCallId, content)]."""
    return "Results: " + " | ".join(f"{call_id} => {content}" for call_id, content in results)


def new_call_id():
    return "call_" + uuid.uuid4().hex[:12]


def arg_pieces(args):
    """The arguments' JSON text in two pieces, as a model streams them."""
    text = json.dumps(args)
    middle = len(text) // 2
    return [text[:middle], text[middle:]]


# ---- the request log ------------------------------------------------------------------------

REQUESTS = []


class RequestLog:
    """ASGI middleware: records each POST to the agent, its JSON body and the SSE text answered."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["path"] != AGENT_PATH or scope["method"] != "POST":
            return await self.app(scope, receive, send)
        chunks = []
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        raw = b"".join(chunks)
        entry = {"body": json.loads(raw), "response": "", "complete": False}
        REQUESTS.append(entry)
        replayed = False

        async def replay():
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": raw, "more_body": False}
            return await receive()

        async def tap(message):
            if message["type"] == "http.response.body":
                entry["response"] += message.get("body", b"").decode("utf-8")
                if not message.get("more_body"):
                    entry["complete"] = True
            await send(message)

        await self.app(scope, replay, tap)


async def list_requests(request):
    return JSONResponse({"requests": REQUESTS})


# ---- the app and its start ------------------------------------------------------------------


def app_with(agent_app):
    """The served app: the agent under /api, the control route and the static files."""
    return RequestLog(
        Starlette(
            routes=[
                Route("/test/requests", list_requests),
                Mount("/api", app=agent_app),
                Mount("/pkg", app=StaticFiles(directory=ROOT / "pkg")),
                Mount("/tools", app=StaticFiles(directory=ROOT / "tests/servers/tools")),
                Mount("/", app=StaticFiles(directory=ROOT / "tests/e2e/pages")),
            ]
        )
    )


def serve(agent_app):
    """Listens on a free port of 127.0.0.1, prints the address, serves until SIGTERM."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)  # connections queue from here on, before uvicorn starts accepting
    print(f"listening on http://127.0.0.1:{sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(app_with(agent_app), log_level="warning", lifespan="off")
    uvicorn.Server(config).run(sockets=[sock])
    sys.exit(0)
