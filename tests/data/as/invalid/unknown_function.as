main agent A {
    main func(input) {
        missing(input)
        B(input)
        A.nope(input)
    }
}

agent B {
    func other(x) {
    }
}
