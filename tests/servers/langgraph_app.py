"""LangGraph through ag-ui-langgraph (LangGraphAgent + add_langgraph_fastapi_endpoint): a one-node
graph whose chat model is scripted and streams its tool calls the way OpenAI's does (the first
chunk of a call carries its id and name with empty arguments, the next ones the argument pieces),
with an in-memory checkpointer, so the server keeps each thread's history.

A user message "ask <question>" makes the node call LangGraph's `interrupt(...)` with a
`responseSchema` ({approved: boolean}); the agent runs with `emit_interrupt_outcome=True`, so the
run ends with the AG-UI 1.0 interrupt outcome, and the answer of the next run's `resume` comes back
as `interrupt`'s value (tests/servers/interrupts.test.mjs). No other message interrupts.
Run: python langgraph_app.py"""

import json
from typing import Any, AsyncIterator, Iterator, List, Optional

from ag_ui_langgraph import LangGraphAgent, add_langgraph_fastapi_endpoint
from fastapi import FastAPI
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.types import interrupt

from common import answer_results, arg_pieces, decide, new_call_id, serve


def _text(content) -> str:
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content if isinstance(part, dict))


class ScriptedChatModel(BaseChatModel):
    """Decides from the conversation (common.decide) and streams like OpenAI's chat model."""

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools, **kwargs):
        return self.bind(tools=tools, **kwargs)

    def _chunks(self, messages: List[BaseMessage], tools) -> Iterator[AIMessageChunk]:
        trailing = []
        for message in reversed(messages):
            if not isinstance(message, ToolMessage):
                break
            trailing.insert(0, (message.tool_call_id, _text(message.content)))
        if trailing:
            yield AIMessageChunk(content=answer_results(trailing))
            return
        user = _text(next(m for m in reversed(messages) if isinstance(m, HumanMessage)).content)
        # "... eagerly": the chunk that opens a call carries the first piece of its arguments too
        # (the README's quirk of ag-ui-langgraph); otherwise OpenAI's way, empty arguments.
        eager = user.endswith(" eagerly")
        offered = {tool["name"] for tool in tools or []}
        kind, what = decide(user.removesuffix(" eagerly"), offered)
        if kind == "text":
            yield AIMessageChunk(content=what)
            return
        for index, (name, args) in enumerate(what):
            pieces = arg_pieces(args)
            first = pieces.pop(0) if eager else ""
            yield AIMessageChunk(
                content="",
                tool_call_chunks=[{"type": "tool_call_chunk", "index": index, "id": new_call_id(), "name": name, "args": first}],
            )
            for piece in pieces:
                yield AIMessageChunk(
                    content="",
                    tool_call_chunks=[{"type": "tool_call_chunk", "index": index, "id": None, "name": None, "args": piece}],
                )

    def _generate(self, messages, stop=None, run_manager=None, tools=None, **kwargs) -> ChatResult:
        merged: Optional[AIMessageChunk] = None
        for chunk in self._chunks(messages, tools):
            merged = chunk if merged is None else merged + chunk
        message = AIMessage(content=merged.content, tool_calls=merged.tool_calls)
        return ChatResult(generations=[ChatGeneration(message=message)])

    async def _astream(self, messages, stop=None, run_manager=None, tools=None, **kwargs) -> AsyncIterator[ChatGenerationChunk]:
        for chunk in self._chunks(messages, tools):
            yield ChatGenerationChunk(message=chunk)


class State(MessagesState):
    # The frontend tools of the request (ag-ui-langgraph writes them here).
    tools: List[Any]


model = ScriptedChatModel()


ASK_SCHEMA = {"type": "object", "properties": {"approved": {"type": "boolean"}}, "required": ["approved"]}


async def chat(state: State, config):
    last = state["messages"][-1] if state["messages"] else None
    if isinstance(last, HumanMessage) and _text(last.content).startswith("ask "):
        # Resumed: `interrupt` returns the resume entry's payload (a cancelled one: a sentinel dict).
        answer = interrupt({"reason": "confirm", "message": _text(last.content)[4:], "responseSchema": ASK_SCHEMA})
        return {"messages": [AIMessage(content=f"Answer: {json.dumps(answer, sort_keys=True)}")]}
    reply = await model.bind_tools(state.get("tools", [])).ainvoke(state["messages"], config)
    return {"messages": [reply]}


graph = StateGraph(State)
graph.add_node("chat", chat)
graph.add_edge(START, "chat")
graph.add_edge("chat", END)

app = FastAPI()
add_langgraph_fastapi_endpoint(app, LangGraphAgent(name="scripted", graph=graph.compile(checkpointer=InMemorySaver()), emit_interrupt_outcome=True), "/agent")

if __name__ == "__main__":
    serve(app)
