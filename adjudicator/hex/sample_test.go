package hex_test

// sampler picks test hexes deterministically (splitmix64), so that the property tests
// cover many pairs the same way on every run, without math/rand (the project draws no
// randomness outside package dice, tests included).
type sampler uint64

// IntN returns a number in [0, n).
func (s *sampler) IntN(n int) int {
	*s += 0x9e3779b97f4a7c15
	z := uint64(*s)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	return int(z % uint64(n))
}
