main agent Walker {
    main func(input) {
        if input.loop {
            for item in input.items max 3 {
                item
            }
        }
        if input.two {
            input.list.add(1, 2)
        }
        [1, 2].add()
    }
}
