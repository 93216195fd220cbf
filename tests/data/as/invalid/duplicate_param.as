main agent A {
    main func(input) {
    }
    func f(a, b, a) {
    }
}
