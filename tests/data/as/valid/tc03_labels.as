import llm M from "ollama://localhost:11434/qwen3.6"

main agent A {
    model M
    role "Researcher"
    description "Find facts."

    main func(input) {
        use input.q as user
        use input.q as user question
        use input.q as "quoted label"
        use input.docs max 2k as retrieved  evidence (v2)
        generate({ input: "Answer." }) -> {
            answer string
        }
    }
}
