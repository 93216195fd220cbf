import tool Api from "{base}/v1"

main agent Poster {
    main func(input) {
        body = { n: 1e21, zero: input.zero, whole: input.whole, small: 0.0000001, tiny: 0.000001, big: input.big, keys: input.keys, items: [1, "two", true, none, 1.50] }
        sent = Api.post({ url: "/echo", body: body })
        text = Api.post({ url: "/echo", body: "as it is, {not: json}" })
        return [sent.json.body, text.json.body]
    }
}
