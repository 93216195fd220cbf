import llm M from "openai://gpt-4o"

main agent Main {
    model M
    role "Coordinator"
    description "Coordinate."

    main func(input) {
        use input.goal as goal
        if input.flag {
            use input.detail as detail
            generate({ input: "Inner." })
        }
        helper(input.goal)
        Worker(input.goal)
        generate({ input: "Outer." })
    }

    func helper(g) {
        use g as helper goal
        generate({ input: "Helper." })
    }
}

agent Worker {
    model M
    role "Worker"
    description "Do the work."

    main func(task) {
        role "Specialist Worker"
        use task
        generate({ input: "Work." })
    }
}
