agent Critic {
    main func(text) {
        text
    }
}
