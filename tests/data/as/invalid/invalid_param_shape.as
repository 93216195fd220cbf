main agent A {
    main func(input) {
    }
    func f(task { goal string }) {
    }
}
