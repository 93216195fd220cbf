import agent Critic from "./critics.as"

main agent Desk {
    main func(input) {
        Critic(input)
    }
}
