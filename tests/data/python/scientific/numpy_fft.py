import numpy as np

n = 64
t = np.arange(n) / n
signal = 3 * np.sin(2 * np.pi * 5 * t) + np.cos(2 * np.pi * 12 * t)
spectrum = np.fft.rfft(signal)
mags = np.abs(spectrum) / (n / 2)
peaks = np.nonzero(mags > 0.5)[0]
print("peak bins:", peaks.tolist())
print("amplitudes:", [round(float(mags[k]), 8) for k in peaks])
back = np.fft.irfft(spectrum, n)
print("roundtrip:", np.allclose(back, signal))
print(np.round(np.fft.fftfreq(8, d=0.5), 6))
