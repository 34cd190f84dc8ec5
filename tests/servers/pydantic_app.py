"""pydantic-ai's AG-UI adapter (AGUIAdapter) on a scripted FunctionModel that streams its tool
calls: the frontend tools are the request's `tools`, the history is the request's `messages`
(the adapter keeps nothing between requests).

Threads whose id starts with `approve-` get the approving agent instead: the same scripted model,
with the backend tool `delete_notes` declared `requires_approval=True` and `DeferredToolRequests`
in its output type, so a call to it ends the run with the AG-UI 1.0 interrupt outcome and the next
run resumes it (tests/servers/interrupts.test.mjs). Run: python pydantic_app.py"""

from pydantic_ai import Agent, DeferredToolRequests
from pydantic_ai.messages import ModelRequest, RetryPromptPart, ToolReturnPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel
from pydantic_ai.ui.ag_ui import AGUIAdapter
from starlette.applications import Starlette
from starlette.routing import Route

from common import answer_results, arg_pieces, decide, new_call_id, serve


async def stream(messages, info: AgentInfo):
    last = messages[-1]
    assert isinstance(last, ModelRequest), last
    # A request holding a user prompt is the user's turn (the results of calls a Stop interrupted
    # ride in the same request); otherwise it holds the results of the calls just made.
    prompts = [part.content for part in last.parts if isinstance(part, UserPromptPart)]
    if not prompts:
        # What the model reads: pydantic-ai wraps a failed result as {"error": content}.
        yield answer_results(
            (part.tool_call_id, part.model_response_str() if isinstance(part, ToolReturnPart) else part.model_response())
            for part in last.parts
            if isinstance(part, (ToolReturnPart, RetryPromptPart))
        )
        return
    offered = {tool.name for tool in info.function_tools}
    kind, what = decide(str(prompts[-1]), offered)
    if kind == "text":
        yield what
        return
    for index, (name, args) in enumerate(what):
        yield {index: DeltaToolCall(name=name, json_args="", tool_call_id=new_call_id())}
        for piece in arg_pieces(args):
            yield {index: DeltaToolCall(json_args=piece)}


agent = Agent(FunctionModel(stream_function=stream))

approving_agent = Agent(FunctionModel(stream_function=stream), output_type=[str, DeferredToolRequests])


@approving_agent.tool_plain(requires_approval=True)
def delete_notes() -> str:
    """Delete all the user's notes (asks the user first)."""
    return "deleted 3 notes"


async def run(request):
    # The adapter reads the body again: Starlette keeps it.
    chosen = approving_agent if str((await request.json()).get("threadId", "")).startswith("approve-") else agent
    return await AGUIAdapter.dispatch_request(request, agent=chosen)


if __name__ == "__main__":
    serve(Starlette(routes=[Route("/agent", run, methods=["POST"])]))
