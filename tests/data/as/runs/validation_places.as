import llm M from "openai://gpt-4o"

main agent Judge {
    model M
    role "Judge"
    description "Judges."

    main func(input) {
        if input.strict {
            return generate({ input: "Judge.", attempts: 2, strict: true }) -> {
                verdict string
            }
        }
        generate({ input: "Judge.", attempts: 2 }) -> {
            verdict string
            scores list[number]
        }
    }
}
