main agent A {
    func helper(x) {
    }
}
