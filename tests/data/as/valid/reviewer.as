// The agent grammar_tour.as imports: a program that imports an agent checks only with that file.
import llm Qwen from "ollama://localhost:11434/qwen3.6"

agent Reviewer {
    model Qwen
    role "Reviewer"
    description "Reviews a plan."

    main func(plan) {
        use plan as plan
        generate({ input: "Review the plan." }) -> {
            approved boolean
        }
    }
}
