package mapimage

// ForgetPictures empties the cache of pictures drawn, so that a benchmark draws each time.
func ForgetPictures() { pictures.clear() }

// ForgetAll empties every cache of what pictures are made of: pictures, base layers,
// compressed bands, so that the next picture is drawn cold.
func ForgetAll() {
	pictures.clear()
	bases.clear()
	forgetBands()
}

// BaseLayer is the base layer of the picture of the view a encodes, laid out as the
// picture of the view layout encodes is: its cache key and its pixels, drawn.
func BaseLayer(a, layout []byte) ([32]byte, []byte, error) {
	sa, err := decode(a)
	if err != nil {
		return [32]byte{}, nil, err
	}
	sl, err := decode(layout)
	if err != nil {
		return [32]byte{}, nil, err
	}
	p, err := newPicture(sl, false, true)
	if err != nil {
		return [32]byte{}, nil, err
	}
	p.s = sa
	static := sa.static()
	key, err := p.baseKey(static)
	if err != nil {
		return [32]byte{}, nil, err
	}
	return key, p.drawBase(static).img.Pix, nil
}

// WholeCanvas makes every picture copy its whole base layer and convert every pixel
// (on), or only the tiles it draws on (off, as RenderEncoded does).
func WholeCanvas(on bool) { wholeCanvas = on }

// ForgetBands forgets the bands compressed of the pictures drawn (not their base
// layers' bands).
func ForgetBands() { forgetBands() }
