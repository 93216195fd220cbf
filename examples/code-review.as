import llm Model from "openai://gpt-4.1-mini"
import tool Grep from "sh://grep"

main agent Reviewer {
    model Model
    role "Senior Code Reviewer"
    description "Turn TODO and FIXME markers into concrete, prioritised review actions."

    main func(input) {
        todos = Grep.run({ path: input.path, pattern: "TODO", include: "*.py", max: 50 })
        fixmes = Grep.run({ path: input.path, pattern: "FIXME", include: "*.py", max: 50 })
        use input.path as scanned folder
        use todos.matches max 600 as TODO markers
        use fixmes.matches max 600 as FIXME markers
        review = generate({ input: "Prioritise the markers: what to fix first, and how." }) -> {
            summary string
            findings list[string]
            next_steps list[string]
        }
        review
    }
}
