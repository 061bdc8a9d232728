import { UpUsageError, parseUpArguments } from '../local/up-arguments';

describe('./dev up arguments', () => {
  it("keeps the previous run's data by default and starts afresh with --fresh", () => {
    expect(parseUpArguments([])).toEqual({ fresh: false });
    expect(parseUpArguments(['--fresh'])).toEqual({ fresh: true });
  });

  it('refuses anything else with the usage line', () => {
    expect(() => parseUpArguments(['--frsh'])).toThrow(UpUsageError);
    expect(() => parseUpArguments(['fresh'])).toThrow(
      /unknown argument 'fresh'\nusage: \.\/dev up \[--fresh\]/,
    );
  });
});
