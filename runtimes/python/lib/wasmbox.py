"""Tools of the host, from sandboxed code (wasmbox's code mode).

    from wasmbox import tools, ToolError
    tools.list()                      # [{'name': 'files__read_file', 'description': ...}, ...]
    tools.search('read a file', 5)    # the best matches first
    tools.schema('files__read_file')  # name, description, inputSchema, ...
    tools.call('files__read_file', {'path': '/tmp/x'})
    tools.files.read_file(path='/tmp/x')   # typed wrappers, help() shows them
                                           # (get_sum also finds a tool named get-sum)

A call's result is the tool's structuredContent when it gives one, else its
content: text (parsed when it is a JSON object or array), images and audio as bytes; several
items make a list. A tool that reports an error, a tool this call may not
use, and a call over the call's limits raise ToolError with the message.
Every request goes to the host (the import wasmbox.tool_request), which
decides what exists and what is allowed; nothing here is a security check.

For code written for code-executor-MCP the builtins call_mcp_tool,
discover_mcp_tools, get_tool_schema and search_tools are coroutine
functions over the same calls (names may carry its mcp__ prefix).
"""
import base64 as _base64
import json as _json

import _wasmbox

__all__ = ['tools', 'ToolError']


class ToolError(Exception):
    """A tool call failed: `type` says how (ToolError, ToolNotAllowed,
    ToolArgumentError, ToolLimitExceeded, ToolTimeout, ToolRequestError),
    the message says why."""

    def __init__(self, message, type='ToolError'):
        super().__init__(message)
        self.type = type


def _request(req):
    reply = _json.loads(_wasmbox.tool_request(_json.dumps(req).encode()))
    if not reply.get('ok'):
        err = reply.get('error') or {}
        raise ToolError(err.get('message', 'the tool request failed'), err.get('type', 'ToolError'))
    return reply.get('result')


def _text(item):
    text = item.get('text', '')
    if text.lstrip()[:1] in ('{', '['):
        try:
            return _json.loads(text)
        except ValueError:
            pass
    return text


def _item(item):
    kind = item.get('type')
    if kind == 'text':
        return _text(item)
    if kind in ('image', 'audio'):
        return _base64.b64decode(item.get('data', ''))
    if kind == 'resource':
        res = item.get('resource') or {}
        if 'text' in res:
            return res['text']
        if 'blob' in res:
            return _base64.b64decode(res['blob'])
    return item


def _result(res):
    if not isinstance(res, dict):
        return res
    content = res.get('content') or []
    if res.get('isError'):
        texts = [c.get('text', '') for c in content if isinstance(c, dict) and c.get('type') == 'text']
        raise ToolError('\n'.join(texts) or 'the tool reported an error')
    if res.get('structuredContent') is not None:
        return res['structuredContent']
    values = [_item(c) for c in content if isinstance(c, dict)]
    if not values:
        return None
    return values[0] if len(values) == 1 else values


def _strip(name):
    return name[5:] if isinstance(name, str) and name.startswith('mcp__') else name


_JSON_TYPES = {'string': 'str', 'integer': 'int', 'number': 'float', 'boolean': 'bool', 'array': 'list',
               'object': 'dict', 'null': 'None'}


def _wrapper(full):
    """A function calling tool `full`, its signature and docstring from the
    tool's inputSchema."""
    import inspect
    spec = tools.schema(full)
    schema = spec.get('inputSchema') or {}
    props = schema.get('properties') or {}
    required = set(schema.get('required') or ())
    params, lines = [], []
    for key, prop in props.items():
        if not key.isidentifier():
            continue
        prop = prop if isinstance(prop, dict) else {}
        kind = _JSON_TYPES.get(prop.get('type'), 'object') if isinstance(prop.get('type'), str) else 'object'
        default = inspect.Parameter.empty if key in required else None
        params.append(inspect.Parameter(key, inspect.Parameter.KEYWORD_ONLY, default=default))
        desc = prop.get('description', '')
        lines.append('  %s (%s%s)%s' % (key, kind, '' if key in required else ', optional',
                                        ': ' + desc if desc else ''))

    def call(**kwargs):
        return tools.call(full, {k: v for k, v in kwargs.items() if v is not None or k in required})

    call.__name__ = call.__qualname__ = full.split('__', 1)[-1]
    call.__doc__ = (spec.get('description') or full) + ('\n\nArguments:\n' + '\n'.join(lines) if lines else '')
    call.__signature__ = inspect.Signature(params)
    return call


class _Server:
    """tools.<server>: its tools as functions."""

    def __init__(self, server):
        self._server = server

    def _names(self):
        prefix = self._server + '__'
        return [t['name'][len(prefix):] for t in tools.list() if t.get('name', '').startswith(prefix)]

    def __getattr__(self, tool):
        if tool.startswith('_'):
            raise AttributeError(tool)
        names = self._names()
        if tool not in names:
            key = tool.replace('_', '').lower()
            loose = [n for n in names if n.replace('_', '').replace('-', '').lower() == key]
            if len(loose) != 1:
                raise AttributeError('no tool %r on server %r (it has: %s)'
                                     % (tool, self._server, ', '.join(sorted(names)) or 'none this call may use'))
            tool = loose[0]
        return _wrapper(self._server + '__' + tool)

    def __dir__(self):
        return sorted(n for n in self._names() if n.isidentifier())

    def __repr__(self):
        return '<tools of server %r>' % self._server


class _Tools:
    """The host's tools (see the module's docstring)."""

    def call(self, name, arguments=None, **kwargs):
        """Call tool `name` (server__tool) with a dict of arguments; its result."""
        args = dict(arguments or {}, **kwargs)
        return _result(_request({'op': 'call', 'name': _strip(name), 'arguments': args}))

    async def acall(self, name, arguments=None, **kwargs):
        """call(), awaitable."""
        return self.call(name, arguments, **kwargs)

    def list(self):
        """Every tool this call may use: [{'name', 'description'}]."""
        return _request({'op': 'list'})

    def search(self, query, limit=10):
        """Tools whose name or description match the words of `query`, best first."""
        return _request({'op': 'search', 'query': str(query), 'limit': int(limit)})

    def schema(self, name):
        """A tool's whole definition: name, description, inputSchema, ..."""
        return _request({'op': 'schema', 'name': _strip(name)})

    def __getattr__(self, server):
        if server.startswith('_'):
            raise AttributeError(server)
        return _Server(server)

    def __dir__(self):
        servers = {t['name'].split('__', 1)[0] for t in self.list() if '__' in t.get('name', '')}
        return sorted(['call', 'acall', 'list', 'search', 'schema'] + [s for s in servers if s.isidentifier()])

    def __repr__(self):
        return '<wasmbox tools>'


tools = _Tools()


async def call_mcp_tool(tool_name, params=None):
    return tools.call(tool_name, params)


async def discover_mcp_tools(search_query=None, limit=50):
    return tools.search(search_query, limit) if search_query else tools.list()


async def get_tool_schema(tool_name):
    return tools.schema(tool_name)


async def search_tools(query, limit=10):
    return tools.search(query, limit)
