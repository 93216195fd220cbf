main agent A {
    model Missing
    main func(input) {
    }
}
