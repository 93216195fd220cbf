-- Opens the program given in PROGRAM, attaches `asrender lsp` (SERVER, a JSON list: the command),
-- waits for its diagnostics, asks for the hover at HOVER_LINE/HOVER_CHARACTER (0-based) and writes
-- both to OUT as JSON (the hover after the error is fixed). Neovim 0.7's API (Debian bookworm's); every wait is bounded.
local program = os.getenv("PROGRAM")
local out = os.getenv("OUT")
vim.cmd("edit " .. vim.fn.fnameescape(program))
local buffer = vim.api.nvim_get_current_buf()
local client = vim.lsp.start_client({
  name = "asrender",
  cmd = vim.fn.json_decode(os.getenv("SERVER")),
  root_dir = vim.fn.fnamemodify(program, ":h"),
  init_options = { timeout = 120 }, -- a shared machine's slow evaluation is not a timeout here
})
vim.lsp.buf_attach_client(buffer, client)
local result = { diagnostics = {}, hover = vim.NIL }
vim.wait(60000, function()
  return #vim.diagnostic.get(buffer) > 0
end, 100)
for _, diagnostic in ipairs(vim.diagnostic.get(buffer)) do
  table.insert(result.diagnostics, {
    line = diagnostic.lnum,
    col = diagnostic.col,
    code = diagnostic.code or (diagnostic.user_data and diagnostic.user_data.lsp and diagnostic.user_data.lsp.code),
    message = diagnostic.message,
  })
end
-- The error fixed as a user would type it (line HOVER_LINE becomes FIXED): a change the client
-- sends, after which the diagnostics clear and the hover shows the calls.
vim.api.nvim_buf_set_lines(buffer, tonumber(os.getenv("HOVER_LINE")), tonumber(os.getenv("HOVER_LINE")) + 1, false, { os.getenv("FIXED") })
result.cleared = vim.wait(60000, function()
  return #vim.diagnostic.get(buffer) == 0
end, 100)
local params = {
  textDocument = { uri = vim.uri_from_bufnr(buffer) },
  position = { line = tonumber(os.getenv("HOVER_LINE")), character = tonumber(os.getenv("HOVER_CHARACTER")) },
}
local answers = vim.lsp.buf_request_sync(buffer, "textDocument/hover", params, 60000)
for _, answer in pairs(answers or {}) do
  if answer.result then
    result.hover = answer.result.contents.value
  end
end
local file = io.open(out, "w")
file:write(vim.fn.json_encode(result))
file:close()
vim.lsp.stop_client(client)
vim.wait(5000, function()
  return vim.lsp.get_client_by_id(client) == nil
end, 100)
vim.cmd("qa!")
