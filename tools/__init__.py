"""The built-in AgentScript tool and memory schemes, registered through ``register_tool_schemes``.

Like ``renderers/``, this package imports only ``core/``: a scheme is a plugin, and a third party's
``s3://`` is registered exactly as ``file://`` is. :mod:`.schemes` says which module serves which
URI scheme; :mod:`.sandbox` keeps file tools inside the workspace, and every scheme asks the run's
:class:`~promptwire.core.permissions.Permissions` before it touches a file, a variable or the network.
"""
