import llm Model from "anthropic://claude-sonnet-4-0"

main agent Solver {
    model Model
    role "Step-by-step Solver"
    description "Think, act, observe; stop when the answer is known."

    main func(input) {
        use input.question as question
        notes = []
        use notes as observations
        state = { done: false }
        loop until state.done max 3 {
            state = generate({ input: "Choose the next action.", think: "low" }) -> {
                thought string
                action string
                done boolean
            }
            notes.add(state.action)
        }
        state
    }
}
