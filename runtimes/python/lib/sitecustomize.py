# wasmbox: run by site.py when the interpreter starts, before the base
# snapshot is taken, so it costs no call anything.
import _wasmbox_extensions
import _wasmbox_packages
import _wasmbox_posix

_wasmbox_extensions.install()
_wasmbox_packages.install()
_wasmbox_posix.install()
del _wasmbox_extensions, _wasmbox_packages, _wasmbox_posix


def _code_executor_names():
    """code-executor-MCP's helpers as builtins, so its scripts run unchanged;
    each imports the module wasmbox (tools) at its first use only."""
    import builtins

    def forward(name):
        async def helper(*args, **kwargs):
            import wasmbox
            return await getattr(wasmbox, name)(*args, **kwargs)
        helper.__name__ = helper.__qualname__ = name
        return helper

    for name in ('call_mcp_tool', 'discover_mcp_tools', 'get_tool_schema', 'search_tools'):
        setattr(builtins, name, forward(name))


_code_executor_names()
del _code_executor_names
