import llm Model from "openai://gpt-4.1-mini"

main agent Planner {
    model Model
    role "Project Planner"
    description "Break a goal into at most three concrete steps."

    main func(input) {
        use input.goal as goal
        use input.constraints max 200 as constraints
        plan = generate({ input: "Plan the work.", attempts: 2 }) -> {
            steps list[string]
        }
        results = []
        for step in plan.steps max 3 {
            results.add(Executor(step))
        }
        { plan: plan, results: results }
    }
}

agent Executor {
    model Model
    role "Executor"
    description "Carry out one step and report what was done."

    main func(step) {
        use step as step
        generate({ input: "Do this step and report.", temperature: 0.2 }) -> {
            done boolean
            report string
        }
    }
}
