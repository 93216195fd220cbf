import agent Checker from "./critic.as"

agent Middle {
    main func(text) {
        Checker(text)
    }
}
