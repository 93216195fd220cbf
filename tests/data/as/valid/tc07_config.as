import llm M from "openai://gpt-4.1"

main agent A {
    model M
    role "Planner"
    description "Plan work."

    main func(input) {
        generate({
            input: "Plan.",
            max_output: 2k,
            attempts: 2,
            temperature: 0.7,
            think: true,
            strict: true,
            debug: false
        }) -> {
            steps list[string]
        }
    }
}
