import llm M from "ollama://gpu-box:11434/qwen3.6"

main agent A {
    model M
    role "Thinker"
    description "Think."

    main func(input) {
        a = generate({ input: "One.", think: "auto", max_output: 1.5k })
        b = generate({ input: "Two.", think: "low", max_output: 0.0001k })
        c = generate({ input: "Three.", think: false, temperature: 0 })
        { a: a, b: b, c: c }
    }
}
