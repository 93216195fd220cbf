"""``asrender lsp``: AgentScript in an editor, over the Language Server Protocol.

The server (:mod:`.server`, built on pygls, the optional ``lsp`` extra) only translates: what it
says about a program comes from the functions ``asrender`` itself calls. Diagnostics are
``asrender check``'s (:mod:`.findings`), navigation and structure read the parsed tree
(:mod:`.outline`), and the prompt a ``generate`` sends is an offline run of the program in a
scratch copy, in a child process bounded in time and memory (:mod:`.evaluation`). Importing this
package imports none of them.
"""
