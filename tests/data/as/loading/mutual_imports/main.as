import agent Planner from "./lib/planner.as"

main agent Desk {
    main func(input) {
        Planner(input.topic)
    }
}
