main agent A {
    main func(input) {
    }
    func f(a) {
    }
    func f(b) {
    }
}
