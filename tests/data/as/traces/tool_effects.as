import tool File from "file://."
import tool Find from "sh://find"
import tool Grep from "sh://grep"
import tool Sed from "sh://sed"
import tool Env from "env://"

main agent Keeper {
    main func(input) {
        text = File.read({ path: "notes.md" })
        names = File.list({ path: "." })
        written = File.write({ path: "out/draft.md", content: "first" })
        patched = File.patch({ path: "notes.md", search: "alpha", replace: "beta" })
        missed = File.patch({ path: "notes.md", search: "gamma", replace: "delta" })
        undone = File.undo(written.effects)
        found = Find.run({ path: ".", name: "*.md", type: "file" })
        lines = Grep.run({ path: ".", pattern: "beta", include: "*.md" })
        head = Sed.run({ path: "notes.md", start: 1, max: 1 })
        home = Env.get({ name: "TRACE_CASE_VALUE" })
        written.effects.add("added later")
        patched.extra = "set later"
        return [missed, undone, home]
    }
}
