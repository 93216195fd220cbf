import llm M from "openai://gpt-4o"

agent Critic {
    model M
    role "Critic"
    description "Finds problems."

    func review(draft) {
        use draft as draft
        generate({ input: "List the problems." })
    }
}

agent Broken {
    func run() {
        nothing_here(1)
    }
}
